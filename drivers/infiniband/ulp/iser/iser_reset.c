// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * iSER initiator across RDMA device resets.
 *
 * ib_iser is a reset-aware ib_client (include/rdma/ib_reset.h):
 *
 * - reset_prepare: every connection on the device is failed towards
 *   iscsid (which starts session recovery) and releases its QP, PD and
 *   pools at once, instead of when RDMA CM removes the device.  A connect
 *   still under way is left to its RDMA CM handler: an event of it can be
 *   on its way to ib_iser already (RDMA CM checked the QP, then waits for
 *   state_mutex), so its QP and device are not taken from under it.  Its
 *   next event finds the device resetting (iser_reset_refuse()), or the
 *   DEVICE_REMOVAL that follows in the same reset ends it, and the connect
 *   is parked.
 *
 * - While a device resets, a connect (iscsid's ep_connect for the
 *   recovering session) creates nothing on it, and one that fails because
 *   the device is away is parked: its endpoint stays pending (ep_poll
 *   returns "not yet") instead of failing.  iscsid polls a pending
 *   endpoint every second until its login_timeout; a failed one costs it
 *   a fixed 3 s before it tries again.  Only a connect whose route is the
 *   resetting device is parked (iser_reset_route_dev()): one that left
 *   through a netdev of its ports, or that found no RDMA device at all
 *   after such a netdev vanished (IPoIB goes with its device).  A reject
 *   or an unreachable target elsewhere fails as before.
 *
 * - reset_done: every connection parked for that device resolves its
 *   address again and connects, and iscsid's next poll starts the login:
 *   the session is back about a second after the device, not at iscsid's
 *   next retry.  A device that is back may not have its GIDs yet: a
 *   connect relaunched there that fails within ISER_RESET_GRACE is parked
 *   again and retried every ISER_RESET_RETRY.
 *   reset_failed: the connections parked for it fail, and iscsid goes on
 *   at its own cadence; replacement_timeout still bounds the outage.
 *
 * - The target's device resetting: the target drops connect requests
 *   without a reply until its device is back.  A connect whose request
 *   went unanswered to the last resend is not failed but connected again
 *   at once (iser_reset_unanswered()), until iscsid's login timeout ends
 *   the attempt, so a target that is back is found at the next request
 *   whenever it returns.
 *
 * Locking: ig.connlist_mutex, then iser_conn->state_mutex, then
 * iser_reset_lock (the list of resetting devices, innermost).  A parked
 * connection has no cma_id and no IB resources; only the code here (under
 * the first two) and iser_conn_release() (which unlinks it from
 * ig.connlist first) touch it.  Its parked_on is only compared.
 * The QP and device of a connection that is connecting (ISER_CONN_PENDING)
 * are released only by its RDMA CM handler, never by reset_prepare: an
 * event of it may be past RDMA CM's checks and waiting for state_mutex.
 */
#define pr_fmt(fmt) "iser: " fmt

#include <linux/netdevice.h>
#include <rdma/ib_reset.h>

#include "iscsi_iser.h"

#define ISER_RESET_GRACE	(2 * HZ)
#define ISER_RESET_RETRY	(HZ / 5)

static void iser_reset_retry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(iser_reset_retry, iser_reset_retry_fn);

static struct ib_client iser_ib_client;

/*
 * ib_iser's client data of a device: while the device resets, it is on
 * iser_resetting with the ifindex of each port's netdev (0: none) as the
 * device went down.
 */
struct iser_reset_dev {
	struct list_head list;
	u32 nports;
	int ifindex[];		/* by port number */
};

static DEFINE_MUTEX(iser_reset_lock);
static LIST_HEAD(iser_resetting);

static bool iser_netdev_gone(int ifindex)
{
	bool gone;

	rcu_read_lock();
	gone = !dev_get_by_index_rcu(&init_net, ifindex);
	rcu_read_unlock();
	return gone;
}

/*
 * The resetting device a failed connect went for: its route left through
 * a netdev of the device's ports, or it acquired no RDMA device and one of
 * those netdevs is gone.  NULL if none.
 */
static struct iser_reset_dev *iser_reset_route_dev(struct rdma_cm_id *cma_id)
{
	int ifindex = cma_id->route.addr.dev_addr.bound_dev_if;
	struct iser_reset_dev *rd;
	u32 port;

	lockdep_assert_held(&iser_reset_lock);
	list_for_each_entry(rd, &iser_resetting, list) {
		for (port = 0; port < rd->nports; port++) {
			if (!rd->ifindex[port])
				continue;
			if (ifindex == rd->ifindex[port] ||
			    (!cma_id->device && iser_netdev_gone(rd->ifindex[port])))
				return rd;
		}
	}
	return NULL;
}

/*
 * iser_reset_park - keep a failed connect pending while its device resets
 * @iser_conn: a connection whose connect just failed (state TERMINATING),
 *	state_mutex held, called from its RDMA CM handler
 * @cma_id: its RDMA CM id
 *
 * Return: true if it was parked: its cma_id is to be destroyed by RDMA CM
 * (the handler returns non-zero) and it no longer refers to it.
 */
bool iser_reset_park(struct iser_conn *iser_conn, struct rdma_cm_id *cma_id)
{
	struct iser_reset_dev *rd;
	bool grace;

	lockdep_assert_held(&iser_conn->state_mutex);

	if (!iser_conn->dst_addr.ss_family)
		return false;
	grace = iser_conn->retrying &&
		time_before(jiffies, iser_conn->retry_until);
	mutex_lock(&iser_reset_lock);
	rd = iser_reset_route_dev(cma_id);
	mutex_unlock(&iser_reset_lock);
	if (!rd && !grace)
		return false;
	if (!rd)
		mod_delayed_work(system_wq, &iser_reset_retry, ISER_RESET_RETRY);
	iser_free_ib_conn_res(iser_conn, true);
	iser_conn->ib_conn.cma_id = NULL;
	iser_conn->state = ISER_CONN_PENDING;
	iser_conn->parked = true;
	iser_conn->parked_on = rd;	/* NULL: its device is back (grace) */
	pr_info("%s: its RDMA device is resetting, the connect waits for it\n",
		iser_conn->name);
	return true;
}

/**
 * iser_reset_unanswered - connect again after an unanswered connect request
 * @iser_conn: a connection whose connect just failed (state TERMINATING),
 *	state_mutex held, called from its RDMA CM handler
 * @event: the event that failed it
 *
 * A target whose RDMA device is away (being reset, or unregistered and
 * registered again) drops connect requests without a reply, and RDMA CM
 * reports RDMA_CM_EVENT_UNREACHABLE (-ETIMEDOUT) once the last resend is
 * unanswered: 12.3 s after the first on RoCE with ISER_CM_REQ_TIMEOUT_MS,
 * within iscsid's login timeout (15 s by default).  A failed endpoint
 * costs iscsid a fixed 3 s before it connects again, and nothing is sent
 * meanwhile: a target back then is found up to 4 s late.  Instead the
 * connect starts again at once with a new cma_id, as a TCP connect goes on
 * resending its SYN: iscsid's login timeout still ends the attempt, after
 * which iscsid connects again at once.  A reject, an address or route
 * error, a connect with a source address, or a connection that was up
 * fails as before.
 *
 * Return: true if it connects again: its cma_id is to be destroyed by RDMA
 * CM (the handler returns non-zero) and it no longer refers to it.
 */
bool iser_reset_unanswered(struct iser_conn *iser_conn,
			   const struct rdma_cm_event *event)
{
	lockdep_assert_held(&iser_conn->state_mutex);

	if (event->event != RDMA_CM_EVENT_UNREACHABLE ||
	    event->status != -ETIMEDOUT ||
	    iser_conn->state != ISER_CONN_TERMINATING ||
	    !iser_conn->dst_addr.ss_family)
		return false;
	iser_free_ib_conn_res(iser_conn, true);
	iser_conn->ib_conn.cma_id = NULL;
	iser_conn->state = ISER_CONN_PENDING;
	iser_conn->parked = true;
	iser_conn->parked_on = NULL;
	mod_delayed_work(system_wq, &iser_reset_retry, 0);
	iser_info("%s: connect request unanswered, connecting again\n",
		  iser_conn->name);
	return true;
}

/**
 * iser_reset_refuse - refuse to go on with a connect over a resetting device
 * @iser_conn: a connection being set up, state_mutex held, called from its
 *	RDMA CM handler
 * @cma_id: its RDMA CM id, which has a device
 *
 * Nothing is set up on a device that is going down for a reset, and a
 * connect answered while it goes down does not go up there.  The caller
 * fails the connect, which iser_cma_handler() then parks.
 *
 * Return: true if the device of @cma_id is resetting.
 */
bool iser_reset_refuse(struct iser_conn *iser_conn, struct rdma_cm_id *cma_id)
{
	lockdep_assert_held(&iser_conn->state_mutex);

	if (!ib_device_is_resetting(cma_id->device))
		return false;
	pr_info("%s: %s is resetting, not connecting over it\n",
		iser_conn->name, dev_name(&cma_id->device->dev));
	return true;
}

static int iser_reset_add_one(struct ib_device *ibdev)
{
	struct iser_reset_dev *rd;
	u32 nports = rdma_end_port(ibdev) + 1;

	rd = kzalloc(struct_size(rd, ifindex, nports), GFP_KERNEL);
	if (!rd)
		return -ENOMEM;
	rd->nports = nports;
	INIT_LIST_HEAD(&rd->list);
	ib_set_client_data(ibdev, &iser_ib_client, rd);
	return 0;
}

static void iser_reset_remove_one(struct ib_device *ibdev, void *data)
{
	kfree(data);
}

static void iser_reset_prepare(struct ib_device *ibdev, void *data)
{
	struct iser_reset_dev *rd = data;
	struct iser_conn *iser_conn;
	struct net_device *ndev;
	struct ib_conn *ib_conn;
	u32 port;

	/* Before the connections fail: their new connects must see it. */
	if (rd) {
		rdma_for_each_port(ibdev, port) {
			if (port >= rd->nports)	/* a new device, more ports */
				break;
			ndev = ib_device_get_netdev(ibdev, port);
			rd->ifindex[port] = ndev ? ndev->ifindex : 0;
			dev_put(ndev);
		}
		mutex_lock(&iser_reset_lock);
		list_add_tail(&rd->list, &iser_resetting);
		mutex_unlock(&iser_reset_lock);
	}

	mutex_lock(&ig.connlist_mutex);
	list_for_each_entry(iser_conn, &ig.connlist, conn_list) {
		ib_conn = &iser_conn->ib_conn;
		mutex_lock(&iser_conn->state_mutex);
		/* A connect under way is left to its handler (see above). */
		if (iser_conn->state != ISER_CONN_PENDING &&
		    ib_conn->cma_id && ib_conn->device &&
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
 * Connect the connections parked for @rd (NULL: those parked in their
 * grace period) again, or fail them (@retry false); @grace: their device
 * just came back, retry failures for a while.
 */
static void iser_reset_unpark(struct iser_reset_dev *rd, bool retry,
			      bool grace)
{
	struct iser_conn *iser_conn;
	struct ib_conn *ib_conn;
	struct sockaddr *dst;
	int err;

	mutex_lock(&ig.connlist_mutex);
	list_for_each_entry(iser_conn, &ig.connlist, conn_list) {
		ib_conn = &iser_conn->ib_conn;
		mutex_lock(&iser_conn->state_mutex);
		if (!iser_conn->parked || iser_conn->parked_on != rd) {
			mutex_unlock(&iser_conn->state_mutex);
			continue;
		}
		iser_conn->parked = false;
		iser_conn->parked_on = NULL;
		if (grace) {
			iser_conn->retrying = true;
			iser_conn->retry_until = jiffies + ISER_RESET_GRACE;
		}
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
	iser_reset_unpark(NULL, true, false);
}

/* @rd is no longer resetting. */
static void iser_reset_end(struct iser_reset_dev *rd)
{
	mutex_lock(&iser_reset_lock);
	list_del_init(&rd->list);
	mutex_unlock(&iser_reset_lock);
}

static void iser_reset_done(struct ib_device *ibdev, void *data)
{
	if (!data)
		return;
	iser_reset_end(data);
	iser_reset_unpark(data, true, true);
}

static void iser_reset_failed(void *data)
{
	if (!data)
		return;
	iser_reset_end(data);
	iser_reset_unpark(data, false, false);
	kfree(data);
}

static struct ib_client iser_ib_client = {
	.name = "iser",
	.add = iser_reset_add_one,
	.remove = iser_reset_remove_one,
	.reset_prepare = iser_reset_prepare,
	.reset_done = iser_reset_done,
	.reset_failed = iser_reset_failed,
};

int iser_reset_init(void)
{
	return ib_register_client(&iser_ib_client);
}

void iser_reset_exit(void)
{
	ib_unregister_client(&iser_ib_client);
	cancel_delayed_work_sync(&iser_reset_retry);
}
