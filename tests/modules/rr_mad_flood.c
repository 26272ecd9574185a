// SPDX-License-Identifier: GPL-2.0
/*
 * A MAD flood for the device reset tests.
 *
 * Once loaded with dev=, sgid= and dgid=, this module sends MADs from port 1
 * of the RDMA device named dev, through its GSI QP, to the GSI QP of the
 * port that has the GID dgid, as fast as a window of in-flight MADs lets
 * it: the receiving port's MAD layer handles a receive completion (and
 * reposts its buffer) almost all the time, which is what a reset of that
 * port must cope with.  The MADs are Get()s of a vendor class (range 1,
 * no OUI) that nothing registers, so the receiving MAD layer answers each
 * with an "unsupported class" response (which this module drops) or, while
 * its port is half closed, logs "Unable to find port agent" for each.
 *
 * The module is an ib_client: it floods while the device named dev is
 * registered and stops when it goes (remove).  Parameters are read once,
 * when that device is added.  "sent" counts the MADs sent so far.
 */
#include <linux/module.h>
#include <linux/kthread.h>
#include <linux/hex.h>
#include <linux/inet.h>
#include <linux/etherdevice.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_mad.h>
#include <rdma/ib_cache.h>

static char *dev;
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to send from (port 1)");
static char *sgid;
module_param(sgid, charp, 0444);
MODULE_PARM_DESC(sgid, "the RoCE v2 GID of dev to send from, e.g. ::ffff:192.0.2.1");
static char *dgid;
module_param(dgid, charp, 0444);
MODULE_PARM_DESC(dgid, "the GID to send to, e.g. ::ffff:192.0.2.2");
static char *dmac;
module_param(dmac, charp, 0444);
MODULE_PARM_DESC(dmac, "the destination MAC address (RoCE)");

static unsigned int rate;
module_param(rate, uint, 0644);
MODULE_PARM_DESC(rate, "MADs per second at most (0: as fast as the window allows)");

static atomic64_t sent = ATOMIC64_INIT(0);
static int sent_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%lld\n", atomic64_read(&sent));
}

static const struct kernel_param_ops sent_ops = { .get = sent_get };
module_param_cb(sent, &sent_ops, NULL, 0444);
MODULE_PARM_DESC(sent, "MADs sent");

#define RR_FLOOD_WINDOW	16
#define RR_FLOOD_CLASS	0x09	/* vendor class, range 1: no OUI */

/*
 * The flood of one device.  Set up in add, torn down in remove (the client
 * callbacks are serialized for a device), so no lock is needed beyond the
 * in-flight counter the send completions and the thread share.
 */
struct rr_flood {
	struct ib_mad_agent *agent;
	struct ib_ah *ah;
	struct task_struct *thread;
	atomic_t inflight;
	wait_queue_head_t wait;
	u32 tid;
};

static void rr_send_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_wc *wc)
{
	struct rr_flood *f = agent->context;

	ib_free_send_mad(wc->send_buf);
	atomic_dec(&f->inflight);
	wake_up(&f->wait);
}

static void rr_recv_handler(struct ib_mad_agent *agent,
			    struct ib_mad_send_buf *send_buf,
			    struct ib_mad_recv_wc *wc)
{
	ib_free_recv_mad(wc);
}

static int rr_send_one(struct rr_flood *f)
{
	struct ib_mad_send_buf *msg;
	struct ib_mad_hdr *hdr;
	int ret;

	msg = ib_create_send_mad(f->agent, 1, 0, 0, IB_MGMT_MAD_HDR,
				 IB_MGMT_MAD_DATA, GFP_KERNEL,
				 IB_MGMT_BASE_VERSION);
	if (IS_ERR(msg))
		return PTR_ERR(msg);
	msg->ah = f->ah;
	msg->timeout_ms = 0;
	msg->retries = 0;
	hdr = msg->mad;
	hdr->base_version = IB_MGMT_BASE_VERSION;
	hdr->mgmt_class = RR_FLOOD_CLASS;
	hdr->class_version = 1;
	hdr->method = IB_MGMT_METHOD_GET;
	hdr->tid = cpu_to_be64(((u64)f->agent->hi_tid << 32) | f->tid++);
	hdr->attr_id = cpu_to_be16(0x10);
	atomic_inc(&f->inflight);
	ret = ib_post_send_mad(msg, NULL);
	if (ret) {
		atomic_dec(&f->inflight);
		ib_free_send_mad(msg);
		return ret;
	}
	atomic64_inc(&sent);
	return 0;
}

static int rr_flood_thread(void *data)
{
	struct rr_flood *f = data;
	unsigned int burst = 0;
	int ret;

	while (!kthread_should_stop()) {
		/* rate: a burst of rate/1000 MADs every millisecond. */
		if (rate && ++burst >= max(rate / 1000, 1U)) {
			burst = 0;
			usleep_range(1000, 1100);
		}
		wait_event_interruptible(f->wait, kthread_should_stop() ||
					 atomic_read(&f->inflight) < RR_FLOOD_WINDOW);
		if (kthread_should_stop())
			break;
		ret = rr_send_one(f);
		if (ret)
			pr_warn_once("rr_mad_flood: send failed: %d\n", ret);
		if (ret)
			schedule_timeout_interruptible(HZ / 100);
		cond_resched();
	}
	/* The remaining sends complete before the agent is unregistered. */
	wait_event(f->wait, !atomic_read(&f->inflight));
	return 0;
}

static int rr_create_ah(struct rr_flood *f, struct ib_device *ibdev)
{
	const struct ib_gid_attr *sattr;
	struct rdma_ah_attr attr = {};
	union ib_gid s, d;
	u8 mac[ETH_ALEN];

	if (!sgid || !dgid || !dmac || !in6_pton(sgid, -1, s.raw, -1, NULL) ||
	    !in6_pton(dgid, -1, d.raw, -1, NULL) || !mac_pton(dmac, mac)) {
		pr_err("rr_mad_flood: sgid=, dgid= (IPv6 notation) and dmac= are needed\n");
		return -EINVAL;
	}
	sattr = rdma_find_gid(ibdev, &s, IB_GID_TYPE_ROCE_UDP_ENCAP, NULL);
	if (IS_ERR(sattr)) {
		pr_err("rr_mad_flood: %s has no RoCE v2 GID %s\n", dev, sgid);
		return PTR_ERR(sattr);
	}
	attr.type = RDMA_AH_ATTR_TYPE_ROCE;
	rdma_ah_set_port_num(&attr, 1);
	rdma_ah_set_grh(&attr, &d, 0, sattr->index, 64, 0);
	memcpy(attr.roce.dmac, mac, ETH_ALEN);
	rdma_put_gid_attr(sattr);
	f->ah = rdma_create_ah(f->agent->qp->pd, &attr,
			       RDMA_CREATE_AH_SLEEPABLE);
	return PTR_ERR_OR_ZERO(f->ah);
}

static struct ib_client rr_flood_client;

static int rr_flood_add(struct ib_device *ibdev)
{
	struct rr_flood *f;
	int ret;

	if (!dev || strcmp(dev_name(&ibdev->dev), dev))
		return -EOPNOTSUPP;
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	atomic_set(&f->inflight, 0);
	init_waitqueue_head(&f->wait);
	f->agent = ib_register_mad_agent(ibdev, 1, IB_QPT_GSI, NULL, 0,
					 rr_send_handler, rr_recv_handler, f, 0);
	if (IS_ERR(f->agent)) {
		ret = PTR_ERR(f->agent);
		goto free;
	}
	ret = rr_create_ah(f, ibdev);
	if (ret)
		goto unregister;
	f->thread = kthread_run(rr_flood_thread, f, "rr_mad_flood");
	if (IS_ERR(f->thread)) {
		ret = PTR_ERR(f->thread);
		goto destroy_ah;
	}
	ib_set_client_data(ibdev, &rr_flood_client, f);
	pr_info("rr_mad_flood: flooding %s from %s\n", dgid, dev);
	return 0;

destroy_ah:
	rdma_destroy_ah(f->ah, RDMA_DESTROY_AH_SLEEPABLE);
unregister:
	ib_unregister_mad_agent(f->agent);
free:
	kfree(f);
	return ret;
}

static void rr_flood_remove(struct ib_device *ibdev, void *client_data)
{
	struct rr_flood *f = client_data;

	kthread_stop(f->thread);
	rdma_destroy_ah(f->ah, RDMA_DESTROY_AH_SLEEPABLE);
	ib_unregister_mad_agent(f->agent);
	pr_info("rr_mad_flood: stopped, %lld MADs sent\n",
		atomic64_read(&sent));
	kfree(f);
}

static struct ib_client rr_flood_client = {
	.name = "rr_mad_flood",
	.add = rr_flood_add,
	.remove = rr_flood_remove,
};

static int __init rr_flood_init(void)
{
	return ib_register_client(&rr_flood_client);
}

static void __exit rr_flood_exit(void)
{
	ib_unregister_client(&rr_flood_client);
}

module_init(rr_flood_init);
module_exit(rr_flood_exit);
MODULE_DESCRIPTION("MAD flood for the RDMA device reset tests");
MODULE_LICENSE("GPL");
