// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA CM across device resets: address-bound listeners are kept.
 *
 * A listener bound to a specific address (nvmet-rdma ports, iSER portals,
 * any rdma_bind_addr() + rdma_listen()) is attached to one device.  When
 * that device goes away for a reset (ib_device_is_resetting()), the
 * listener does not get RDMA_CM_EVENT_DEVICE_REMOVAL: it is detached from
 * the device (its ib_cm/iw_cm listen and its device reference dropped) but
 * keeps its rdma_cm_id, its state (RDMA_CM_LISTEN) and its port
 * reservation in the bind list, so nobody else can take the address.  When
 * a device with the same driver and node_guid registers and the bound
 * address is on it, the listener is attached to it and listens again.
 * ULPs need no change for this.
 *
 * If that does not happen within ib_core's reset timeout, the listener
 * gets RDMA_CM_EVENT_DEVICE_REMOVAL as it would have at the reset.
 *
 * Wildcard listeners are not affected (they live on listen_any_list and
 * already follow devices); connected ids get DEVICE_REMOVAL as before;
 * a real removal, not a reset, keeps today's semantics.  Userspace
 * (rdma_ucm) listeners also keep today's semantics: they get
 * DEVICE_REMOVAL, because a userspace process holds the device through its
 * verbs context and must let it go for the reset to proceed.
 */
#define pr_fmt(fmt) "rdma_cm: " fmt

#include <linux/module.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/wait.h>
#include <linux/inetdevice.h>
#include <net/addrconf.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_reset.h>
#include <rdma/rdma_cm.h>
#include <rdma/rdma_cm_reset.h>

#include "cma_priv.h"
#include "cma_reset.h"

/*
 * One kept listener.
 *
 * kept_lock protects the kept list and every field here.  Lock order:
 * id_priv->handler_mutex, then kept_lock, then cma.c's lock.  kept_lock is
 * never held across ib_cm/iw_cm calls or ULP callbacks.
 *
 * @detaching: the listener is on the list but still being detached from
 *	its device (its ib_cm/iw_cm listen is destroyed without
 *	handler_mutex: ib_destroy_cm_id() waits for request handlers that
 *	take it).  rdma_destroy_id() waits for it to clear
 *	(cma_reset_forget()); nothing else touches the record then.
 * @attaching: the retry work holds a reference and tries to attach it.
 *	The record may be freed meanwhile (rdma_destroy_id()); the work looks
 *	it up again by id afterwards.
 */
struct cma_kept {
	struct list_head list;
	struct rdma_id_private *id_priv;
	u32 driver_id;
	__be64 node_guid;
	unsigned long deadline;		/* jiffies */
	bool detaching;
	bool attaching;
	unsigned int pass;	/* last retry pass that tried it */
};

static DEFINE_MUTEX(kept_lock);
static LIST_HEAD(kept_list);
/*
 * kept_wq is woken, and detach_seq (written under kept_lock, read without
 * it by waiters) advanced, whenever a record stops detaching.
 */
static DECLARE_WAIT_QUEUE_HEAD(kept_wq);
static unsigned long detach_seq;

/* Ids that asked for reset events (rdma_set_reset_handler()). */
struct cma_reset_handler {
	struct list_head list;
	struct rdma_cm_id *id;
	rdma_cm_reset_handler handler;
};

static LIST_HEAD(handlers);

static void cma_reset_retry_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(retry_work, cma_reset_retry_fn);
static void cma_reset_expire_fn(struct work_struct *work);
static DECLARE_DELAYED_WORK(expire_work, cma_reset_expire_fn);

static struct cma_kept *find_kept(struct rdma_id_private *id_priv)
{
	struct cma_kept *k;

	lockdep_assert_held(&kept_lock);
	list_for_each_entry(k, &kept_list, list)
		if (k->id_priv == id_priv)
			return k;
	return NULL;
}

static void notify(struct rdma_id_private *id_priv,
		   enum rdma_cm_reset_event event)
{
	rdma_cm_reset_handler fn = NULL;
	struct cma_reset_handler *h;

	mutex_lock(&kept_lock);
	list_for_each_entry(h, &handlers, list) {
		if (h->id == &id_priv->id) {
			fn = h->handler;
			break;
		}
	}
	mutex_unlock(&kept_lock);
	if (fn)
		fn(&id_priv->id, event);
}

/*
 * Re-arm the expiry work for the earliest deadline; under kept_lock.  A
 * record being detached or attached is not counted: whoever clears the
 * flag calls this again, so the work never polls a busy record.
 */
static void arm_expiry(void)
{
	unsigned long first = 0;
	struct cma_kept *k;
	bool any = false;

	lockdep_assert_held(&kept_lock);
	list_for_each_entry(k, &kept_list, list) {
		if (k->detaching || k->attaching)
			continue;
		if (!any || time_before(k->deadline, first))
			first = k->deadline;
		any = true;
	}
	if (any)
		mod_delayed_work(system_unbound_wq, &expire_work,
				 time_after(first, jiffies) ? first - jiffies : 0);
}

/**
 * cma_reset_keep_listener - keep a listener of a resetting device
 * @id_priv: an id that cma_process_remove() is about to remove, with a
 *	reference held by the caller
 *
 * Context: process context, no cma lock held.
 * Return: true if the listener was detached and kept (the caller drops its
 * reference and sends no DEVICE_REMOVAL), false to remove it as usual.
 */
bool cma_reset_keep_listener(struct rdma_id_private *id_priv)
{
	struct ib_device *dev = id_priv->id.device;
	struct cma_kept *k;

	if (!dev || !ib_device_is_resetting(dev))
		return false;
	k = kzalloc(sizeof(*k), GFP_KERNEL);
	if (!k)
		return false;

	mutex_lock(&id_priv->handler_mutex);
	if (!cma_reset_is_bound_listener(id_priv)) {
		mutex_unlock(&id_priv->handler_mutex);
		kfree(k);
		return false;
	}
	k->id_priv = id_priv;
	k->driver_id = dev->ops.driver_id;
	k->node_guid = dev->node_guid;
	k->deadline = jiffies + msecs_to_jiffies(ib_reset_timeout_ms());
	k->detaching = true;
	mutex_lock(&kept_lock);
	list_add_tail(&k->list, &kept_list);
	mutex_unlock(&kept_lock);
	mutex_unlock(&id_priv->handler_mutex);

	cma_reset_detach(id_priv);
	pr_info("%s: keeping listener %pISpc across the reset\n",
		dev_name(&dev->dev), &id_priv->id.route.addr.src_addr);

	mutex_lock(&kept_lock);
	k->detaching = false;
	WRITE_ONCE(detach_seq, detach_seq + 1);
	arm_expiry();
	mutex_unlock(&kept_lock);
	wake_up_all(&kept_wq);

	notify(id_priv, RDMA_CM_RESET_PREPARE);
	return true;
}

/**
 * cma_reset_notify_removal - an id of a resetting device is being removed
 * @id_priv: an id that gets RDMA_CM_EVENT_DEVICE_REMOVAL next
 *
 * An id that asked for reset events learns, just before its
 * DEVICE_REMOVAL, that the removal is a reset (RDMA_CM_RESET_PREPARE): it
 * must still be destroyed (its QP is on the device), but its owner can
 * expect the device back (ib_client reset_done) and reconnect then.
 *
 * Context: process context, no cma lock held.
 */
void cma_reset_notify_removal(struct rdma_id_private *id_priv)
{
	struct ib_device *dev = id_priv->id.device;

	if (dev && ib_device_is_resetting(dev))
		notify(id_priv, RDMA_CM_RESET_PREPARE);
}

/**
 * cma_reset_forget - rdma_destroy_id() of a possibly kept listener
 * @id_priv: the id being destroyed
 *
 * Context: process context, from _destroy_id(), no lock held.
 */
void cma_reset_forget(struct rdma_id_private *id_priv)
{
	struct cma_reset_handler *h, *tmp;
	struct cma_kept *k;

	mutex_lock(&kept_lock);
	list_for_each_entry_safe(h, tmp, &handlers, list) {
		if (h->id == &id_priv->id) {
			list_del(&h->list);
			kfree(h);
		}
	}
	for (;;) {
		unsigned long seq;

		k = find_kept(id_priv);
		if (!k || !k->detaching)
			break;
		/* Not a mutex in the wait condition: it runs !TASK_RUNNING. */
		seq = detach_seq;
		mutex_unlock(&kept_lock);
		wait_event(kept_wq, READ_ONCE(detach_seq) != seq);
		mutex_lock(&kept_lock);
	}
	if (k)
		list_del(&k->list);
	mutex_unlock(&kept_lock);
	kfree(k);
}

/* Try to attach every kept listener whose device is back. */
static void cma_reset_retry_fn(struct work_struct *work)
{
	static unsigned int pass;	/* only this (non-reentrant) work */
	char name[IB_DEVICE_NAME_MAX];
	struct rdma_id_private *id_priv;
	struct cma_kept *k;
	bool again = false;
	__be64 node_guid;
	u32 driver_id;
	int ret;

	pass++;
	for (;;) {
		id_priv = NULL;
		mutex_lock(&kept_lock);
		list_for_each_entry(k, &kept_list, list) {
			if (k->detaching || k->attaching || k->pass == pass ||
			    !cma_reset_device_present(k->driver_id, k->node_guid))
				continue;
			k->attaching = true;
			k->pass = pass;
			id_priv = k->id_priv;
			driver_id = k->driver_id;
			node_guid = k->node_guid;
			cma_reset_id_get(id_priv);
			break;
		}
		mutex_unlock(&kept_lock);
		if (!id_priv)
			break;

		mutex_lock(&id_priv->handler_mutex);
		ret = -ENOENT;
		if (cma_reset_is_bound_listener(id_priv))
			ret = cma_reset_attach(id_priv, driver_id, node_guid);
		if (!ret)
			strscpy(name, dev_name(&id_priv->id.device->dev),
				sizeof(name));
		mutex_unlock(&id_priv->handler_mutex);

		mutex_lock(&kept_lock);
		k = find_kept(id_priv);
		if (k && !ret) {
			list_del(&k->list);
			kfree(k);
		} else if (k) {
			/* The address may not be on the device yet. */
			k->attaching = false;
			again = true;
			arm_expiry();
		}
		mutex_unlock(&kept_lock);

		if (!ret) {
			pr_info("%s: listener %pISpc listens again\n", name,
				&id_priv->id.route.addr.src_addr);
			notify(id_priv, RDMA_CM_RESET_DONE);
		}
		cma_reset_id_put(id_priv);
	}
	/*
	 * A device that is back may publish the bound address later (IPoIB,
	 * GID table population): address events retry at once, this backs up.
	 */
	if (again)
		mod_delayed_work(system_unbound_wq, &retry_work,
				 msecs_to_jiffies(250));
}

/* Kept listeners whose deadline passed get DEVICE_REMOVAL, as at reset. */
static void cma_reset_expire_fn(struct work_struct *work)
{
	struct rdma_id_private *id_priv;
	struct cma_kept *k;

	for (;;) {
		id_priv = NULL;
		mutex_lock(&kept_lock);
		list_for_each_entry(k, &kept_list, list) {
			if (!k->detaching && !k->attaching &&
			    time_after_eq(jiffies, k->deadline)) {
				list_del(&k->list);
				id_priv = k->id_priv;
				cma_reset_id_get(id_priv);
				kfree(k);
				break;
			}
		}
		if (!id_priv)
			arm_expiry();
		mutex_unlock(&kept_lock);
		if (!id_priv)
			break;
		pr_info("listener %pISpc: its device did not come back, removing it\n",
			&id_priv->id.route.addr.src_addr);
		notify(id_priv, RDMA_CM_RESET_FAILED);
		cma_reset_remove_put(id_priv);
	}
}

/* cma_add_one(): a device is (back) up. */
void cma_reset_device_added(void)
{
	mod_delayed_work(system_unbound_wq, &retry_work, 0);
}

/*
 * An address was added.  The IPv6 chain is atomic (called under
 * rcu_read_lock(), from softirq for autoconfigured addresses): take no
 * lock here.  The retry work finds nothing to do if nothing is kept.
 */
static int cma_reset_addr_event(struct notifier_block *nb,
				unsigned long event, void *ptr)
{
	if (event == NETDEV_UP && !list_empty_careful(&kept_list))
		mod_delayed_work(system_unbound_wq, &retry_work, 0);
	return NOTIFY_DONE;
}

static struct notifier_block cma_reset_inetaddr_nb = {
	.notifier_call = cma_reset_addr_event,
};

static struct notifier_block cma_reset_inet6addr_nb = {
	.notifier_call = cma_reset_addr_event,
};

/**
 * rdma_set_reset_handler - ask for reset events on an id
 * @id: a kernel RDMA CM id
 * @handler: called with RDMA_CM_RESET_PREPARE when the id's listener is
 *	kept across a reset of its device, RDMA_CM_RESET_DONE when it
 *	listens again, and RDMA_CM_RESET_FAILED just before the
 *	RDMA_CM_EVENT_DEVICE_REMOVAL that ends a reset whose device did not
 *	come back.  Any other id (connected, connecting) of a resetting
 *	device gets RDMA_CM_RESET_PREPARE just before its DEVICE_REMOVAL, so
 *	it can tell a reset from a removal.  NULL to stop.
 *
 * The events are informational: the listener is kept whether or not it
 * asked for them.  They are delivered through this separate callback, not
 * as new enum rdma_cm_event_type values, because a new value would change
 * the CRC of 130 exported symbols (the enum reaches struct ib_device_ops
 * through fill_res_cm_id_entry) and stop every stock RDMA module from
 * loading.  The handler runs in process context without the id's
 * handler_mutex and may sleep; it must not destroy @id.
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a userspace id, or -ENOMEM.
 */
int rdma_set_reset_handler(struct rdma_cm_id *id,
			   rdma_cm_reset_handler handler)
{
	struct rdma_id_private *id_priv =
		container_of(id, struct rdma_id_private, id);
	struct cma_reset_handler *h, *tmp, *new = NULL;

	if (!rdma_is_kernel_res(&id_priv->res))
		return -EINVAL;
	if (handler) {
		new = kzalloc(sizeof(*new), GFP_KERNEL);
		if (!new)
			return -ENOMEM;
		new->id = id;
		new->handler = handler;
	}
	mutex_lock(&kept_lock);
	list_for_each_entry_safe(h, tmp, &handlers, list) {
		if (h->id == id) {
			list_del(&h->list);
			kfree(h);
		}
	}
	if (new)
		list_add_tail(&new->list, &handlers);
	mutex_unlock(&kept_lock);
	return 0;
}
EXPORT_SYMBOL(rdma_set_reset_handler);

int cma_reset_init(void)
{
	int ret;

	ret = register_inetaddr_notifier(&cma_reset_inetaddr_nb);
	if (ret)
		return ret;
	ret = register_inet6addr_notifier(&cma_reset_inet6addr_nb);
	if (ret)
		unregister_inetaddr_notifier(&cma_reset_inetaddr_nb);
	return ret;
}

/* Module unload: every id is destroyed, so nothing is kept. */
void cma_reset_exit(void)
{
	unregister_inet6addr_notifier(&cma_reset_inet6addr_nb);
	unregister_inetaddr_notifier(&cma_reset_inetaddr_nb);
	cancel_delayed_work_sync(&retry_work);
	cancel_delayed_work_sync(&expire_work);
	WARN_ON(!list_empty(&kept_list));
	WARN_ON(!list_empty(&handlers));
}
