// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * In-place reset of a Soft-RoCE device (ib_device_reset()).
 *
 * rxe has no hardware to reset.  Its reset op runs while no client has the
 * device, so it checks the one thing a reset promises: every client released
 * every object it had on the device.  A leftover object means a client kept
 * a pointer into the device across reset_prepare; the reset then fails and
 * names what was left.
 */
#include "rxe.h"
#include "rxe_reset.h"

/* ib_device_ops.reset */
int rxe_reset(struct ib_device *ib_dev)
{
	struct rxe_dev *rxe = container_of(ib_dev, struct rxe_dev, ib_dev);
	static const struct {
		const char *name;
		size_t offset;
	} pools[] = {
		{ "ucontext", offsetof(struct rxe_dev, uc_pool) },
		{ "pd", offsetof(struct rxe_dev, pd_pool) },
		{ "ah", offsetof(struct rxe_dev, ah_pool) },
		{ "srq", offsetof(struct rxe_dev, srq_pool) },
		{ "qp", offsetof(struct rxe_dev, qp_pool) },
		{ "cq", offsetof(struct rxe_dev, cq_pool) },
		{ "mr", offsetof(struct rxe_dev, mr_pool) },
		{ "mw", offsetof(struct rxe_dev, mw_pool) },
	};
	int i, left, ret = 0;

	for (i = 0; i < ARRAY_SIZE(pools); i++) {
		struct rxe_pool *pool = (void *)rxe + pools[i].offset;

		left = atomic_read(&pool->num_elem);
		if (left) {
			rxe_err_dev(rxe, "reset: %d %s object(s) still allocated\n",
				    left, pools[i].name);
			ret = -EBUSY;
		}
	}
	/* A new QP1 is created when ib_mad gets the device back. */
	rxe->port.qp_gsi_index = 0;
	return ret;
}
