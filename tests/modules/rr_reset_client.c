// SPDX-License-Identifier: GPL-2.0
/*
 * A reset-aware test client for the device reset tests.
 *
 * Registers three ib_clients, in this order: rr_a and rr_b (reset-aware)
 * and rr_c (not).  Each allocates a PD on the device when it gets it (add
 * or reset_done) and frees it when it lets go (remove or reset_prepare),
 * and logs every callback as
 *
 *   rr-ev: <client> <event> <device> id=<client_data id>
 *
 * and, at reset_prepare, the number of QPs the device still has then
 * ("rr-ev: <client> qps <device> <n>", ib_mad's QP1 included);
 *
 * so a test can check the order of callbacks and that client_data
 * survives a reset (same id before and after).
 *
 * With listen=IP:PORT it also listens there with RDMA CM, asks for reset
 * notifications and logs them ("rr-ev: cm <event> - id=0"), and logs a
 * DEVICE_REMOVAL of the listener ("rr-ev: cm removal - id=0").  With
 * resolve=IP it resolves a route to IP from an id that also asks for reset
 * notifications ("rr-ev: cmr <event> - id=0"): an id attached to a device
 * that is not a listener.  With drop_rxe_reset, rxe devices lose their
 * in-place reset op, so rxe stands for a driver that has none.  It also
 * checks that a client with reset_prepare but no reset_done is refused.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/delay.h>
#include <rdma/ib_verbs.h>
#include <rdma/restrack.h>
#include <rdma/ib_reset.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_reset.h>
#include <linux/inet.h>

static bool keep_pd;
module_param(keep_pd, bool, 0644);
MODULE_PARM_DESC(keep_pd, "break the contract: keep the PD across reset_prepare (test knob)");

static unsigned int prepare_delay_ms;
module_param(prepare_delay_ms, uint, 0644);
MODULE_PARM_DESC(prepare_delay_ms, "sleep this long in reset_prepare (test knob)");
static unsigned int done_delay_ms;
module_param(done_delay_ms, uint, 0644);
MODULE_PARM_DESC(done_delay_ms, "sleep this long in reset_done (test knob)");

static unsigned int failed_delay_ms;
module_param(failed_delay_ms, uint, 0644);
MODULE_PARM_DESC(failed_delay_ms, "sleep this long in reset_failed (test knob)");

static bool drop_rxe_reset;
module_param(drop_rxe_reset, bool, 0444);
MODULE_PARM_DESC(drop_rxe_reset, "take the in-place reset op away from rxe devices, making rxe a driver without one (test knob; reload rdma_rxe to get it back)");

static bool undeclare_rxe;
module_param(undeclare_rxe, bool, 0444);
MODULE_PARM_DESC(undeclare_rxe, "clear the reset key of rxe devices present at load, so that ib_core matches their re-registration by node GUID, as for a driver that declares no key (test knob)");

static char *listen;
module_param(listen, charp, 0444);
MODULE_PARM_DESC(listen, "IPv4:port to listen on with RDMA CM");

static char *resolve;
module_param(resolve, charp, 0444);
MODULE_PARM_DESC(resolve, "IPv4 address to resolve a route to with RDMA CM");

static atomic_t live = ATOMIC_INIT(0);
static int live_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&live));
}

static const struct kernel_param_ops live_ops = { .get = live_get };
module_param_cb(live, &live_ops, NULL, 0444);
MODULE_PARM_DESC(live, "client_data objects alive");

static atomic_t next_id = ATOMIC_INIT(0);

struct rr_data {
	int id;
	struct ib_pd *pd;
};

static int rr_get_device(struct ib_device *dev, struct ib_client *client,
			 struct rr_data *d, const char *ev)
{
	d->pd = ib_alloc_pd(dev, 0);
	if (IS_ERR(d->pd)) {
		pr_err("rr-ev: %s %s %s id=%d pd error %ld\n", client->name, ev,
		       dev_name(&dev->dev), d->id, PTR_ERR(d->pd));
		d->pd = NULL;
		return -EIO;
	}
	pr_info("rr-ev: %s %s %s id=%d\n", client->name, ev,
		dev_name(&dev->dev), d->id);
	return 0;
}

static void rr_put_device(struct ib_device *dev, struct ib_client *client,
			  struct rr_data *d, const char *ev)
{
	pr_info("rr-ev: %s %s %s id=%d\n", client->name, ev,
		dev_name(&dev->dev), d->id);
	if (keep_pd && !strcmp(ev, "prepare"))
		return;
	if (d->pd)
		ib_dealloc_pd(d->pd);
	d->pd = NULL;
}

static void rr_free(struct rr_data *d)
{
	kfree(d);
	atomic_dec(&live);
}

/*
 * drop_rxe_reset: rxe devices lose their in-place reset op, as if their
 * driver had none (upstream: ib_device_ops.reset of the device; the 6.12
 * backport keeps driver reset ops in a table of its own, see rr_init()).
 * undeclare_rxe: rxe devices lose their reset key.
 */
static void rr_drop_reset(struct ib_device *dev)
{
	if (dev->ops.driver_id != RDMA_DRIVER_RXE)
		return;
#ifndef IB_RESET_COMPAT
	if (drop_rxe_reset)
		dev->ops.reset = NULL;
#endif
	if (undeclare_rxe)
		ib_device_set_reset_key(dev, 0);
}

#define RR_CLIENT(x)						\
static struct ib_client rr_##x;						\
static int rr_##x##_add(struct ib_device *dev)				\
{									\
	struct rr_data *d = kzalloc(sizeof(*d), GFP_KERNEL);		\
									\
	if (!d)								\
		return -ENOMEM;						\
	atomic_inc(&live);						\
	d->id = atomic_inc_return(&next_id);				\
	rr_drop_reset(dev);						\
	if (rr_get_device(dev, &rr_##x, d, "add")) {			\
		rr_free(d);						\
		return -EIO;						\
	}								\
	ib_set_client_data(dev, &rr_##x, d);				\
	return 0;							\
}									\
static void rr_##x##_remove(struct ib_device *dev, void *data)		\
{									\
	rr_put_device(dev, &rr_##x, data, "remove");			\
	rr_free(data);							\
}									\
static void rr_##x##_prepare(struct ib_device *dev, void *data)		\
{									\
	/* What clients prepared before this one left on the device. */	\
	pr_info("rr-ev: rr_" #x " qps %s %d\n", dev_name(&dev->dev),	\
		rdma_restrack_count(dev, RDMA_RESTRACK_QP, false));	\
	rr_put_device(dev, &rr_##x, data, "prepare");			\
	if (prepare_delay_ms)						\
		msleep(prepare_delay_ms);				\
}									\
static void __maybe_unused rr_##x##_done(struct ib_device *dev, void *data) \
{									\
	struct rr_data *d = ib_get_client_data(dev, &rr_##x);		\
									\
	if (d != data)							\
		pr_err("rr-ev: " #x " client_data mismatch\n");		\
	if (done_delay_ms) {						\
		pr_info("rr-ev: rr_" #x " done-wait %s id=%d\n",	\
			dev_name(&dev->dev), d->id);			\
		msleep(done_delay_ms);					\
	}								\
	rr_get_device(dev, &rr_##x, data, "done");			\
}									\
static void __maybe_unused rr_##x##_failed(void *data)			\
{									\
	struct rr_data *d = data;					\
									\
	if (failed_delay_ms) {						\
		pr_info("rr-ev: rr_" #x " failed-wait - id=%d\n", d->id);	\
		msleep(failed_delay_ms);				\
	}								\
	pr_info("rr-ev: rr_" #x " failed - id=%d\n", d->id);		\
	/* keep_pd, in place only: the device is still there. */	\
	if (d->pd)							\
		ib_dealloc_pd(d->pd);					\
	rr_free(d);							\
}									\
static struct ib_client rr_##x

RR_CLIENT(a);
RR_CLIENT(b);
RR_CLIENT(c);

#define RR_OPS(x)							\
	.name = "rr_" #x,						\
	.add = rr_##x##_add,						\
	.remove = rr_##x##_remove
#define RR_RESET_OPS(x)							\
	.reset_prepare = rr_##x##_prepare,				\
	.reset_done = rr_##x##_done,					\
	.reset_failed = rr_##x##_failed

static struct ib_client rr_a = { RR_OPS(a), RR_RESET_OPS(a) };
static struct ib_client rr_b = { RR_OPS(b), RR_RESET_OPS(b) };
/* Unaware of resets: it must see remove/add. */
static struct ib_client rr_c = { RR_OPS(c) };

/* Bad input: reset_prepare without reset_done, refused at registration. */
static struct ib_client rr_bad = {
	.name = "rr_bad",
	.reset_prepare = rr_c_prepare,
};

/* The listener; NULL once handed to RDMA CM (DEVICE_REMOVAL) or stopped. */
static struct rdma_cm_id *rr_listen_id;

static int rr_cm_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	if (ev->event == RDMA_CM_EVENT_DEVICE_REMOVAL) {
		pr_info("rr-ev: cm removal - id=0\n");
		/* Ours to destroy unless rr_listen_stop() already took it. */
		return cmpxchg(&rr_listen_id, id, NULL) == id;
	}
	/* Connection requests are refused: this is a listener only. */
	return 1;
}

static void rr_cm_reset(struct rdma_cm_id *id, enum rdma_cm_reset_event ev)
{
	static const char * const names[] = {
		[RDMA_CM_RESET_PREPARE] = "prepare",
		[RDMA_CM_RESET_DONE] = "done",
		[RDMA_CM_RESET_FAILED] = "failed",
	};

	pr_info("rr-ev: cm %s - id=0\n", names[ev]);
}

static int rr_listen_start(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	char ip[16];
	const char *colon;
	u16 port;
	int ret;

	colon = strchr(listen, ':');
	if (!colon || colon - listen >= sizeof(ip) || kstrtou16(colon + 1, 10, &port)) {
		pr_err("rr_reset_client: listen=%s: expected IPv4:port\n", listen);
		return -EINVAL;
	}
	strscpy(ip, listen, colon - listen + 1);
	if (!in4_pton(ip, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL)) {
		pr_err("rr_reset_client: listen=%s: bad IPv4 address\n", listen);
		return -EINVAL;
	}
	sin.sin_port = htons(port);

	id = rdma_create_id(&init_net, rr_cm_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_bind_addr(id, (struct sockaddr *)&sin);
	if (!ret)
		ret = rdma_listen(id, 8);
	if (!ret)
		ret = rdma_set_reset_handler(id, rr_cm_reset);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	rr_listen_id = id;
	return 0;
}

/* The resolving id; NULL once handed to RDMA CM or stopped. */
static struct rdma_cm_id *rr_resolve_id;

static int rr_cmr_handler(struct rdma_cm_id *id, struct rdma_cm_event *ev)
{
	switch (ev->event) {
	case RDMA_CM_EVENT_ADDR_RESOLVED:
		pr_info("rr-ev: cmr resolved %s id=0\n", dev_name(&id->device->dev));
		return 0;
	case RDMA_CM_EVENT_DEVICE_REMOVAL:
		pr_info("rr-ev: cmr removal - id=0\n");
		return cmpxchg(&rr_resolve_id, id, NULL) == id;
	default:
		pr_info("rr-ev: cmr event %d - id=0\n", ev->event);
		return 0;
	}
}

static void rr_cmr_reset(struct rdma_cm_id *id, enum rdma_cm_reset_event ev)
{
	pr_info("rr-ev: cmr %s - id=0\n",
		ev == RDMA_CM_RESET_PREPARE ? "prepare" : "other");
}

static int rr_resolve_start(void)
{
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct rdma_cm_id *id;
	int ret;

	if (!in4_pton(resolve, -1, (u8 *)&sin.sin_addr.s_addr, -1, NULL)) {
		pr_err("rr_reset_client: resolve=%s: bad IPv4 address\n", resolve);
		return -EINVAL;
	}
	id = rdma_create_id(&init_net, rr_cmr_handler, NULL, RDMA_PS_TCP,
			    IB_QPT_RC);
	if (IS_ERR(id))
		return PTR_ERR(id);
	ret = rdma_set_reset_handler(id, rr_cmr_reset);
	if (!ret)
		ret = rdma_resolve_addr(id, NULL, (struct sockaddr *)&sin, 2000);
	if (ret) {
		rdma_destroy_id(id);
		return ret;
	}
	rr_resolve_id = id;
	return 0;
}

static void rr_listen_stop(void)
{
	struct rdma_cm_id *id = xchg(&rr_listen_id, NULL);

	if (id)
		rdma_destroy_id(id);
	id = xchg(&rr_resolve_id, NULL);
	if (id)
		rdma_destroy_id(id);
}

static int __init rr_init(void)
{
	int ret;

#ifdef IB_RESET_COMPAT
	/* The 6.12 backport keeps driver reset ops beside ib_device_ops. */
	if (drop_rxe_reset)
		ib_unregister_driver_reset(RDMA_DRIVER_RXE);
#endif
	ret = ib_register_client(&rr_a);
	if (ret)
		return ret;
	ret = ib_register_client(&rr_b);
	if (ret)
		goto out_a;
	/* rr_c is unaware of resets: it must see remove/add. */
	ret = ib_register_client(&rr_c);
	if (ret)
		goto out_b;
	ret = ib_register_client(&rr_bad);
	if (ret != -EINVAL) {
		pr_err("rr-ev: a client with reset_prepare but no reset_done was accepted (%d)\n",
		       ret);
		if (!ret)
			ib_unregister_client(&rr_bad);
	}
	ret = 0;
	if (listen)
		ret = rr_listen_start();
	if (!ret && resolve)
		ret = rr_resolve_start();
	if (ret) {
		rr_listen_stop();
		ib_unregister_client(&rr_c);
		goto out_b;
	}
	return 0;

out_b:
	ib_unregister_client(&rr_b);
out_a:
	ib_unregister_client(&rr_a);
	return ret;
}

static void __exit rr_exit(void)
{
	rr_listen_stop();
	ib_unregister_client(&rr_c);
	ib_unregister_client(&rr_b);
	ib_unregister_client(&rr_a);
	if (atomic_read(&live))
		pr_err("rr-ev: %d client_data objects leaked\n", atomic_read(&live));
}

module_init(rr_init);
module_exit(rr_exit);
MODULE_DESCRIPTION("rdma-reset test client: records reset callbacks");
MODULE_LICENSE("GPL");
