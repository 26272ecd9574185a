// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * RDMA CM across device resets: address-bound listeners are kept.
 *
 * A listener bound to a specific address (nvmet-rdma ports, iSER portals,
 * any rdma_bind_addr() + rdma_listen() of a kernel id) is attached to one
 * device.  When that device resets, the listener does not get
 * RDMA_CM_EVENT_DEVICE_REMOVAL: it is detached from the device (its
 * ib_cm/iw_cm listen and its device reference dropped) but keeps its
 * rdma_cm_id, its state (RDMA_CM_LISTEN) and its port reservation in the
 * bind list, so nobody else can take the address.  ULPs need no change.
 *
 * The reset itself is ib_core's: rdma_cm follows it through a reset-aware
 * ib_client of its own (cma_reset_client), registered after cma_client.
 * ib_core removes clients in reverse registration order and adds them in
 * order, so
 *  - its reset_prepare runs before cma_remove_one(): the device's bound
 *    listeners are detached and kept, before the others get DEVICE_REMOVAL;
 *  - its reset_done runs after cma_add_one() for the device that is back,
 *    the one ib_core chose (no identity guessing here): the kept listeners
 *    are attached to it and listen again.  One whose address is not on it
 *    yet (IPoIB brings its addresses later, RoCE GIDs are populated after
 *    registration) is attached on the event that makes it usable: an
 *    address event or the device's GID_CHANGE.  It stays kept until then,
 *    as a bound listener whose address went away stays on its device;
 *  - its reset_failed (the device did not come back within ib_core's reset
 *    timeout, the only timeout) gives them the DEVICE_REMOVAL they would
 *    have got at the reset, as does a real removal of the device while
 *    they wait for their address.
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
 * The reset client's data for a device: the reset its kept listeners
 * belong to (ib_core hands it back at reset_done or reset_failed).
 *
 * @dev: the device while it is this client's (from add or reset_done to
 *	reset_prepare or remove), NULL in between.  Under kept_lock.  Only
 *	the retry work dereferences it, while a record it attaches is marked
 *	attaching, and reset_prepare and remove wait for such records after
 *	clearing it: the device is registered meanwhile.
 * @eh: GID_CHANGE events of @dev, registered while @dev is set.
 */
struct cma_reset_dev {
	struct ib_device *dev;
	struct ib_event_handler eh;
};

/*
 * One kept listener.
 *
 * kept_lock protects the kept list, every field here and
 * cma_reset_dev::dev.  Lock order: id_priv->handler_mutex, then kept_lock,
 * then cma.c's lock.  kept_lock is never held across ib_cm/iw_cm calls or
 * ULP callbacks.
 *
 * @owner: the device's reset client data; the listener is attached to
 *	owner->dev when that is set and the address is on it.
 * @detaching: the listener is on the list but still being detached from
 *	its device (its ib_cm/iw_cm listen is destroyed without
 *	handler_mutex: ib_destroy_cm_id() waits for request handlers that
 *	take it).  rdma_destroy_id() waits for it to clear
 *	(cma_reset_forget()); nothing else touches the record then.
 * @attaching: someone holds a reference and tries to attach it.  The
 *	record may be freed meanwhile (rdma_destroy_id()); the attacher looks
 *	it up again by id afterwards.
 */
struct cma_kept {
	struct list_head list;
	struct rdma_id_private *id_priv;
	struct cma_reset_dev *owner;
	bool detaching;
	bool attaching;
	unsigned int pass;	/* last retry pass that tried it */
};

static DEFINE_MUTEX(kept_lock);
static LIST_HEAD(kept_list);
/*
 * kept_wq is woken, and kept_seq (written under kept_lock, read without it
 * by waiters) advanced, whenever a record stops detaching or attaching.
 */
static DECLARE_WAIT_QUEUE_HEAD(kept_wq);
static unsigned long kept_seq;

/* Ids that asked for reset events (rdma_set_reset_handler()). */
struct cma_reset_handler {
	struct list_head list;
	struct rdma_cm_id *id;
	rdma_cm_reset_handler handler;
};

static LIST_HEAD(handlers);

static struct ib_client cma_reset_client;
static void cma_reset_retry_fn(struct work_struct *work);
static DECLARE_WORK(retry_work, cma_reset_retry_fn);

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

/* A record stopped detaching or attaching. */
static void kept_settled(void)
{
	lockdep_assert_held(&kept_lock);
	WRITE_ONCE(kept_seq, kept_seq + 1);
	wake_up_all(&kept_wq);
}

/* Wait, under kept_lock (dropped meanwhile), until @busy is false. */
static void kept_wait(bool (*busy)(void *arg), void *arg)
{
	unsigned long seq;

	lockdep_assert_held(&kept_lock);
	while (busy(arg)) {
		/* Not a mutex in the wait condition: it runs !TASK_RUNNING. */
		seq = kept_seq;
		mutex_unlock(&kept_lock);
		wait_event(kept_wq, READ_ONCE(kept_seq) != seq);
		mutex_lock(&kept_lock);
	}
}

static bool owner_attaching(void *arg)
{
	struct cma_kept *k;

	list_for_each_entry(k, &kept_list, list)
		if (k->owner == arg && k->attaching)
			return true;
	return false;
}

/*
 * Try to attach @k's listener to @dev; kept_lock held, and dropped
 * meanwhile.  Return: true if it listens again (@k is freed).
 */
static bool kept_attach(struct cma_kept *k, struct ib_device *dev)
{
	struct rdma_id_private *id_priv = k->id_priv;
	char name[IB_DEVICE_NAME_MAX];
	int ret;

	lockdep_assert_held(&kept_lock);
	k->attaching = true;
	cma_reset_id_get(id_priv);
	mutex_unlock(&kept_lock);

	mutex_lock(&id_priv->handler_mutex);
	ret = -ENOENT;
	if (cma_reset_is_bound_listener(id_priv))
		ret = cma_reset_attach(id_priv, dev);
	mutex_unlock(&id_priv->handler_mutex);
	strscpy(name, dev_name(&dev->dev), sizeof(name));

	mutex_lock(&kept_lock);
	k = find_kept(id_priv);
	if (k && !ret) {
		list_del(&k->list);
		kfree(k);
	} else if (k) {
		/* Not usable yet: an address or GID event tries again. */
		k->attaching = false;
	}
	kept_settled();
	mutex_unlock(&kept_lock);

	if (!ret) {
		pr_info("%s: listener %pISpc listens again\n", name,
			&id_priv->id.route.addr.src_addr);
		notify(id_priv, RDMA_CM_RESET_DONE);
	}
	cma_reset_id_put(id_priv);
	mutex_lock(&kept_lock);
	return !ret;
}

/*
 * Attach every kept listener whose device is back (@owner's only, or
 * any), each once per pass.
 */
static void kept_attach_all(struct cma_reset_dev *owner)
{
	static unsigned int pass;	/* under kept_lock */
	struct cma_kept *k;
	bool again;

	mutex_lock(&kept_lock);
	pass++;
	do {
		again = false;
		list_for_each_entry(k, &kept_list, list) {
			if (k->detaching || k->attaching || k->pass == pass ||
			    !k->owner->dev || (owner && k->owner != owner))
				continue;
			k->pass = pass;
			/* The list may change while the lock is dropped. */
			kept_attach(k, k->owner->dev);
			again = true;
			break;
		}
	} while (again);
	mutex_unlock(&kept_lock);
}

static void cma_reset_retry_fn(struct work_struct *work)
{
	kept_attach_all(NULL);
}

/* A device's GID table changed: a kept listener's address may be usable. */
static void cma_reset_event(struct ib_event_handler *eh, struct ib_event *ev)
{
	if (ev->event == IB_EVENT_GID_CHANGE && !list_empty_careful(&kept_list))
		queue_work(system_unbound_wq, &retry_work);
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
		queue_work(system_unbound_wq, &retry_work);
	return NOTIFY_DONE;
}

static struct notifier_block cma_reset_inetaddr_nb = {
	.notifier_call = cma_reset_addr_event,
};

static struct notifier_block cma_reset_inet6addr_nb = {
	.notifier_call = cma_reset_addr_event,
};

/* @rd has @dev (again). */
static void reset_dev_own(struct cma_reset_dev *rd, struct ib_device *dev)
{
	INIT_IB_EVENT_HANDLER(&rd->eh, dev, cma_reset_event);
	ib_register_event_handler(&rd->eh);
	mutex_lock(&kept_lock);
	rd->dev = dev;
	mutex_unlock(&kept_lock);
}

/*
 * @rd lets its device go: no attach to it may start, and none is running
 * when this returns.
 */
static void reset_dev_release(struct cma_reset_dev *rd)
{
	mutex_lock(&kept_lock);
	rd->dev = NULL;
	kept_wait(owner_attaching, rd);
	mutex_unlock(&kept_lock);
	ib_unregister_event_handler(&rd->eh);
}

/* The listeners @rd keeps get the DEVICE_REMOVAL they were spared. */
static void reset_dev_remove_kept(struct cma_reset_dev *rd)
{
	struct rdma_id_private *id_priv;
	struct cma_kept *k;

	for (;;) {
		id_priv = NULL;
		mutex_lock(&kept_lock);
		list_for_each_entry(k, &kept_list, list) {
			if (k->owner == rd && !k->detaching) {
				list_del(&k->list);
				id_priv = k->id_priv;
				cma_reset_id_get(id_priv);
				kfree(k);
				break;
			}
		}
		mutex_unlock(&kept_lock);
		if (!id_priv)
			break;
		pr_info("listener %pISpc: its device did not come back, removing it\n",
			&id_priv->id.route.addr.src_addr);
		notify(id_priv, RDMA_CM_RESET_FAILED);
		cma_reset_remove_put(id_priv);
	}
}

static int cma_reset_add_one(struct ib_device *dev)
{
	struct cma_reset_dev *rd;

	rd = kzalloc_obj(*rd);
	if (!rd)
		return -ENOMEM;
	reset_dev_own(rd, dev);
	ib_set_client_data(dev, &cma_reset_client, rd);
	return 0;
}

static void cma_reset_remove_one(struct ib_device *dev, void *data)
{
	struct cma_reset_dev *rd = data;

	reset_dev_release(rd);
	/* Kept listeners still waiting for their address on it. */
	reset_dev_remove_kept(rd);
	kfree(rd);
}

/*
 * The device goes down for a reset: detach and keep its bound listeners
 * (cma_remove_one(), which runs next, removes every other id).
 */
static void cma_reset_prepare(struct ib_device *dev, void *data)
{
	struct cma_reset_dev *rd = data;
	struct rdma_id_private *id_priv;
	struct cma_kept *k;

	reset_dev_release(rd);
	while ((id_priv = cma_reset_next_bound_listener(dev))) {
		k = kzalloc_obj(*k, GFP_KERNEL | __GFP_NOFAIL);
		mutex_lock(&id_priv->handler_mutex);
		if (!cma_reset_is_bound_listener(id_priv)) {
			/* Being destroyed: it releases the device itself. */
			mutex_unlock(&id_priv->handler_mutex);
			kfree(k);
			cma_reset_id_put(id_priv);
			continue;
		}
		k->id_priv = id_priv;
		k->owner = rd;
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
		kept_settled();
		mutex_unlock(&kept_lock);

		notify(id_priv, RDMA_CM_RESET_PREPARE);
		cma_reset_id_put(id_priv);
	}
}

/* The device is back (cma_add_one() ran for it): listen on it again. */
static void cma_reset_done(struct ib_device *dev, void *data)
{
	struct cma_reset_dev *rd = data;

	reset_dev_own(rd, dev);
	kept_attach_all(rd);
}

/* It did not come back within ib_core's reset timeout. */
static void cma_reset_failed(void *data)
{
	reset_dev_remove_kept(data);
	kfree(data);
}

static struct ib_client cma_reset_client = {
	.name = "rdma_cm_reset",
	.add = cma_reset_add_one,
	.remove = cma_reset_remove_one,
	.reset_prepare = cma_reset_prepare,
	.reset_done = cma_reset_done,
	.reset_failed = cma_reset_failed,
};

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

static bool kept_busy(void *arg)
{
	struct cma_kept *k = find_kept(arg);

	return k && (k->detaching || k->attaching);
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
	kept_wait(kept_busy, id_priv);
	k = find_kept(id_priv);
	if (k)
		list_del(&k->list);
	mutex_unlock(&kept_lock);
	kfree(k);
}

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
 * as new enum rdma_cm_event_type values, which every event handler that
 * switches on the type would see.  The handler runs in process context
 * without the id's handler_mutex and may sleep; it must not destroy @id.
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
		new = kzalloc_obj(*new);
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

/* cma_init(), after cma_client is registered. */
int cma_reset_init(void)
{
	int ret;

	ret = register_inetaddr_notifier(&cma_reset_inetaddr_nb);
	if (ret)
		return ret;
	ret = register_inet6addr_notifier(&cma_reset_inet6addr_nb);
	if (ret)
		goto err_inet;
	ret = ib_register_client(&cma_reset_client);
	if (ret)
		goto err_inet6;
	return 0;

err_inet6:
	unregister_inet6addr_notifier(&cma_reset_inet6addr_nb);
err_inet:
	unregister_inetaddr_notifier(&cma_reset_inetaddr_nb);
	return ret;
}

/* Module unload: every id is destroyed, so nothing is kept. */
void cma_reset_exit(void)
{
	ib_unregister_client(&cma_reset_client);
	unregister_inet6addr_notifier(&cma_reset_inet6addr_nb);
	unregister_inetaddr_notifier(&cma_reset_inetaddr_nb);
	cancel_work_sync(&retry_work);
	WARN_ON(!list_empty(&kept_list));
	WARN_ON(!list_empty(&handlers));
}
