// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iSER initiator across RDMA device resets.
 *
 * ib_iser is a reset-aware ib_client (include/rdma/ib_reset.h):
 *
 * - reset_prepare: every connection on the device is failed towards
 *   iscsid (which starts session recovery) and releases its QP, PD and
 *   pools at once, instead of when RDMA CM removes the device.
 *
 * - While a reset is in progress, a connect (iscsid's ep_connect for the
 *   recovering session) creates nothing on the resetting device, and one
 *   whose address does not resolve because its device is away is parked:
 *   its endpoint stays pending (ep_poll returns "not yet") instead of
 *   failing.  iscsid polls a pending endpoint every second until its
 *   login_timeout; a failed one costs it a fixed 3 s before it tries again.
 *
 * - reset_done: every parked connection resolves its address again and
 *   connects, and iscsid's next poll starts the login: the session is
 *   back about a second after the device, not at iscsid's next retry.
 *   A device that is back may not have its GIDs yet: a connect that fails
 *   within ISER_RESET_GRACE of reset_done is parked again and retried
 *   every ISER_RESET_RETRY.
 *   reset_failed: parked connections fail unless another reset is still
 *   pending, and iscsid goes on at its own cadence; replacement_timeout
 *   still bounds the outage.
 *
 * Locking: ig.connlist_mutex, then iser_conn->state_mutex.  A parked
 * connection has no cma_id and no IB resources; only the code here (under
 * both locks) and iser_conn_release() (which unlinks it from ig.connlist
 * first) touch it.
 */
#define pr_fmt(fmt) "iser: " fmt

#include <rdma/ib_reset.h>

#include "iscsi_iser.h"

#define ISER_RESET_GRACE	(2 * HZ)
#define ISER_RESET_RETRY	(HZ / 5)

static void iser_reset_retry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iser_reset_retry, iser_reset_retry_fn);

/*
 * iser_reset_park - keep a failed connect pending while a reset is under way
 * @iser_conn: a connection whose connect just failed (state TERMINATING),
 *	state_mutex held, called from its RDMA CM handler
 *
 * Return: true if it was parked: its cma_id is to be destroyed by RDMA CM
 * (the handler returns non-zero) and it no longer refers to it.
 */
bool iser_reset_park(struct iser_conn *iser_conn)
{
	lockdep_assert_held(&iser_conn->state_mutex);

	bool grace = time_before(jiffies, iser_conn->retry_until);

	if (!iser_conn->dst_addr.ss_family || (!ib_reset_pending() && !grace))
		return false;
	if (grace)
		mod_delayed_work(system_wq, &iser_reset_retry, ISER_RESET_RETRY);
	iser_free_ib_conn_res(iser_conn, true);
	iser_conn->ib_conn.cma_id = NULL;
	iser_conn->state = ISER_CONN_PENDING;
	iser_conn->parked = true;
	pr_info("%s: an RDMA device is resetting, the connect waits for it\n",
		iser_conn->name);
	return true;
}

static void iser_reset_prepare(struct ib_device *ibdev, void *data)
{
	struct iser_conn *iser_conn;
	struct ib_conn *ib_conn;

	mutex_lock(&ig.connlist_mutex);
	list_for_each_entry(iser_conn, &ig.connlist, conn_list) {
		ib_conn = &iser_conn->ib_conn;
		mutex_lock(&iser_conn->state_mutex);
		if (ib_conn->cma_id && ib_conn->device &&
		    ib_conn->device->ib_device == ibdev) {
			pr_info("%s: %s resetting, releasing the connection\n",
				iser_conn->name, dev_name(&ibdev->dev));
			/* Fails the session first, then lets the device go. */
			iser_cleanup_handler(ib_conn->cma_id, true);
		}
		mutex_unlock(&iser_conn->state_mutex);
	}
	mutex_unlock(&ig.connlist_mutex);
}

/*
 * Connect the parked connections again, or fail them (@retry false);
 * @grace: a device just came back, retry failures for a while.
 */
static void iser_reset_unpark(bool retry, bool grace)
{
	struct iser_conn *iser_conn;
	struct ib_conn *ib_conn;
	struct sockaddr *dst;
	int err;

	mutex_lock(&ig.connlist_mutex);
	list_for_each_entry(iser_conn, &ig.connlist, conn_list) {
		ib_conn = &iser_conn->ib_conn;
		mutex_lock(&iser_conn->state_mutex);
		if (!iser_conn->parked) {
			mutex_unlock(&iser_conn->state_mutex);
			continue;
		}
		iser_conn->parked = false;
		if (grace)
			iser_conn->retry_until = jiffies + ISER_RESET_GRACE;
		err = -ENODEV;
		if (retry) {
			ib_conn->cma_id = rdma_create_id(&init_net,
							 iser_cma_handler,
							 iser_conn, RDMA_PS_TCP,
							 IB_QPT_RC);
			err = PTR_ERR_OR_ZERO(ib_conn->cma_id);
			dst = (struct sockaddr *)&iser_conn->dst_addr;
			if (!err)
				err = rdma_resolve_addr(ib_conn->cma_id, NULL,
							dst, 1000);
			if (err && !IS_ERR(ib_conn->cma_id))
				rdma_destroy_id(ib_conn->cma_id);
			if (err)
				ib_conn->cma_id = NULL;
		}
		if (err)	/* ep_poll reports it to iscsid */
			iser_conn->state = ISER_CONN_TERMINATING;
		if (grace || err)
			pr_info("%s: %s\n", iser_conn->name,
				err ? "the device did not come back, connect failed" :
				"device back, connecting");
		mutex_unlock(&iser_conn->state_mutex);
	}
	mutex_unlock(&ig.connlist_mutex);
}

static void iser_reset_retry_fn(struct work_struct *work)
{
	iser_reset_unpark(true, false);
}

static void iser_reset_done(struct ib_device *ibdev, void *data)
{
	iser_reset_unpark(true, true);
}

static void iser_reset_failed(void *data)
{
	/* Another reset may still bring the address back. */
	iser_reset_unpark(ib_reset_pending(), false);
}

static const struct ib_reset_ops iser_reset_ops = {
	.reset_prepare = iser_reset_prepare,
	.reset_done = iser_reset_done,
	.reset_failed = iser_reset_failed,
};

static struct ib_client iser_ib_client = {
	.name = "iser",
};

int iser_reset_init(void)
{
	int ret = ib_register_client(&iser_ib_client);

	if (ret)
		return ret;
	ret = ib_register_client_reset_ops(&iser_ib_client, &iser_reset_ops);
	if (ret)
		ib_unregister_client(&iser_ib_client);
	return ret;
}

void iser_reset_exit(void)
{
	ib_unregister_client(&iser_ib_client);
	cancel_delayed_work_sync(&iser_reset_retry);
}
