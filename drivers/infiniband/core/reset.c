// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device reset events for ib_clients: reset_prepare / reset_done instead of
 * remove / add, for in-place resets and for resets that unregister the
 * device and register a new one with the same identity.
 *
 * A client takes part through the reset callbacks of its struct ib_client,
 * a driver through ib_device_ops.reset.  Per-device state is in a list of
 * its own (struct reset_dev).  A re-registration reset is kept by device
 * identity, never by a device pointer that could outlive its device: the
 * reset key its driver declared (ib_device_set_reset_key()), with driver
 * id, node_guid and namespace; for a driver that declares none, the last
 * three, used only while no other device shares them.  The admin interface
 * (reset_sysfs.c) reads the state through ib_reset_dev_state().
 */
#define pr_fmt(fmt) "rdma_reset: " fmt

#include <linux/ctype.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/workqueue.h>
#include <linux/ktime.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_reset.h>

#include "core_priv.h"
#include "reset_priv.h"

#define CREATE_TRACE_POINTS
#include "reset_trace.h"

/*
 * Module parameters.  Both are read once per reset, so a change applies to
 * the next reset.
 */
static unsigned int reset_timeout_ms = 30000;
#define RESET_TIMEOUT_MIN_MS	100
#define RESET_TIMEOUT_MAX_MS	3600000

static int reset_timeout_set(const char *val, const struct kernel_param *kp)
{
	unsigned int ms;

	if (kstrtouint(val, 0, &ms) || ms < RESET_TIMEOUT_MIN_MS ||
	    ms > RESET_TIMEOUT_MAX_MS) {
		pr_warn("reset_timeout_ms: '%s' is not a number of milliseconds in [%u, %u]\n",
			strim((char *)val), RESET_TIMEOUT_MIN_MS,
			RESET_TIMEOUT_MAX_MS);
		return -EINVAL;
	}
	WRITE_ONCE(reset_timeout_ms, ms);
	return 0;
}

static const struct kernel_param_ops reset_timeout_ops = {
	.set = reset_timeout_set,
	.get = param_get_uint,
};
module_param_cb(reset_timeout_ms, &reset_timeout_ops, &reset_timeout_ms, 0644);
MODULE_PARM_DESC(reset_timeout_ms,
		 "How long reset-aware clients keep their state for a device that was unregistered by a reset, in ms [100..3600000] (default 30000)");

/*
 * reset_on_unregister: the drivers (module names, comma-separated) whose
 * every unregistration of a device is a possible reset, for drivers that
 * do not mark their resets (ib_device_reset_expect()) themselves.  Empty
 * by default: an unregistration is a reset only when the driver or the
 * admin marked it.  Written under reset_lock, read under it.
 */
#define RESET_ON_UNREG_MAX	256
static char reset_on_unregister[RESET_ON_UNREG_MAX];

static DEFINE_MUTEX(reset_lock);

/* @list: comma-separated module names; normalise '-' to '_' in @out. */
static int reset_on_unregister_parse(const char *list, char *out, size_t size)
{
	size_t n = strcspn(list, "\n"), i, len = 0;

	if (list[n] && list[n + 1])
		return -EINVAL;		/* only a trailing newline */
	if (n >= size)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		char c = list[i];

		if (c == ',') {
			if (!len || i + 1 == n)
				return -EINVAL;	/* an empty name */
			len = 0;
		} else if (isalnum(c) || c == '_' || c == '-') {
			if (++len >= MODULE_NAME_LEN)
				return -EINVAL;
			c = c == '-' ? '_' : c;
		} else {
			return -EINVAL;
		}
		out[i] = c;
	}
	out[n] = '\0';
	return 0;
}

static int reset_on_unregister_set(const char *val,
				   const struct kernel_param *kp)
{
	char buf[RESET_ON_UNREG_MAX];

	if (reset_on_unregister_parse(val, buf, sizeof(buf))) {
		pr_warn("reset_on_unregister: '%s' is not a comma-separated list of module names\n",
			strim((char *)val));
		return -EINVAL;
	}
	mutex_lock(&reset_lock);
	strscpy(reset_on_unregister, buf, sizeof(reset_on_unregister));
	mutex_unlock(&reset_lock);
	return 0;
}

static int reset_on_unregister_get(char *buf, const struct kernel_param *kp)
{
	int ret;

	mutex_lock(&reset_lock);
	ret = sysfs_emit(buf, "%s\n", reset_on_unregister);
	mutex_unlock(&reset_lock);
	return ret;
}

static const struct kernel_param_ops reset_on_unregister_ops = {
	.set = reset_on_unregister_set,
	.get = reset_on_unregister_get,
};
module_param_cb(reset_on_unregister, &reset_on_unregister_ops, NULL, 0644);
MODULE_PARM_DESC(reset_on_unregister,
		 "Drivers (module names, comma-separated) whose every device unregistration is a possible reset; for drivers that do not mark their resets (default: none)");

/* Is @dev's driver listed in reset_on_unregister? */
static bool reset_on_unregister_lists(struct ib_device *dev)
{
	const char *name = dev->ops.owner ? module_name(dev->ops.owner) : "";
	const char *p = reset_on_unregister;
	size_t len = strlen(name);

	lockdep_assert_held(&reset_lock);
	if (!len)
		return false;
	while (*p) {
		size_t n = strcspn(p, ",");

		if (n == len && !strncmp(p, name, len))
			return true;
		p += n + (p[n] == ',');
	}
	return false;
}

/*
 * reset_lock protects every list below and every field of the structures
 * on them unless a field says otherwise, and reset_on_unregister.  It is
 * never held across a client or driver callback: callbacks may sleep and
 * call back into ib_core.  Lock order: device->unregistration_lock, then
 * reset_lock.
 */

/*
 * One registered device: from ib_reset_device_registering() to
 * ib_reset_device_unregistering(), so @dev is valid (and its name may be
 * read) while the record is listed.  A re-registration reset carries @hist
 * to the device that comes back; a real removal forgets it.
 *
 * @blocks counts userspace users that block an in-place reset
 * (ib_device_block_reset()).  It is taken and checked under reset_lock,
 * as the reset is published, so neither can miss the other.
 */
struct reset_dev {
	struct list_head list;
	struct ib_device *dev;
	bool ready;		/* registration done: it may be reset in place */
	bool expect;		/* the next unregistration is a reset */
	unsigned int blocks;
	u64 key;		/* ib_device_set_reset_key(), 0: none */
	struct ib_reset_hist hist;
};

static LIST_HEAD(reset_devs);

/*
 * A reset key set before the device registered (ib_device_set_reset_key()):
 * taken into the device's record when it registers, or dropped when the
 * device is freed without having registered (ib_reset_device_freed()).
 */
struct reset_prekey {
	struct list_head list;
	struct ib_device *dev;
	u64 key;
};

static LIST_HEAD(prekeys);

/*
 * A client's state kept across a reset.  @client stays valid while the
 * entry exists: ib_unregister_client() takes every entry of the client out
 * (reset_forget_client(), which calls reset_failed) and waits for the ones
 * on the failing list before it returns.  @client_data is the client's;
 * ib_core only hands it back.
 */
struct reset_kept {
	struct list_head list;
	struct ib_client *client;
	void *client_data;
};

/*
 * Kept entries whose reset_failed is running (reset_fail_kept()), off
 * their reset, which may be freed meanwhile.  failing_seq (written under
 * reset_lock, read without it by waiters on failing_wq) advances whenever
 * one is done.
 */
static LIST_HEAD(failing);
static DECLARE_WAIT_QUEUE_HEAD(failing_wq);
static unsigned long failing_seq;

/*
 * Re-registration timeouts run here, so that ib_core's exit can end the
 * ones still pending and wait for them (ib_reset_cleanup()).
 */
static struct workqueue_struct *reset_wq;

/*
 * One reset in progress.
 *
 * @dev: the device while it goes down (prepare) and, once claimed, while it
 * comes back (done).  It is only ever compared with the device a hook runs
 * for, and set to NULL before an unregistered device can be freed: nothing
 * dereferences it.
 *
 * An in-place reset is on the list only while ib_device_reset() holds
 * @dev->unregistration_lock, so an unregistration or a namespace move
 * (which take that lock) never finds it.  A re-registration reset is added
 * by the unregistration itself, under the same lock.
 *
 * The identity of a re-registration reset is what a registering device
 * must have to claim it, in the namespace @net_cookie, with the same
 * @driver_id:
 *  - @key, when the driver declared one (ib_device_set_reset_key()), and
 *    the same @node_guid (a device that comes back with another node GUID
 *    is a new device);
 *  - else @node_guid, used only while it is unique: a device whose
 *    node_guid is 0, or shared with another registered device or a
 *    pending reset (rxe derives it from the MAC: a bond and its slave,
 *    cloned VMs), is never kept for a re-registration, its unregistration
 *    is a removal (ident_shared()).
 * A declared key is unique too: a key shared with another registered
 * device or pending reset of the driver makes the unregistration a
 * removal.
 */
struct ib_reset {
	struct list_head list;
	u32 driver_id;
	__be64 node_guid;
	u64 key;
	u64 net_cookie;
	char name[IB_DEVICE_NAME_MAX];
	const char *kind;	/* "in-place" or "re-register" */
	struct ib_device *dev;
	bool coming_back;	/* clients get reset_done, not prepare */
	ktime_t start;
	struct ib_reset_hist hist;	/* re-register: the device's, carried over */
	struct list_head kept;	/* struct reset_kept, in prepare order */
	struct delayed_work timeout;
};

static LIST_HEAD(resets);

/*
 * Whether @client set any reset callback.  ib_register_client() refuses a
 * client that sets some but not reset_prepare and reset_done, so a client
 * this is true for takes reset events instead of remove and add.
 */
static bool client_has_reset(const struct ib_client *client)
{
	return client->reset_prepare || client->reset_done ||
	       client->reset_failed;
}

static struct reset_dev *find_dev(struct ib_device *dev)
{
	struct reset_dev *rd;

	lockdep_assert_held(&reset_lock);
	list_for_each_entry(rd, &reset_devs, list)
		if (rd->dev == dev)
			return rd;
	return NULL;
}

static struct ib_reset *find_reset_by_dev(struct ib_device *dev)
{
	struct ib_reset *r;

	lockdep_assert_held(&reset_lock);
	list_for_each_entry(r, &resets, list)
		if (r->dev == dev)
			return r;
	return NULL;
}

static u64 dev_net_cookie(struct ib_device *dev)
{
	return read_pnet(&dev->coredev.rdma_net)->net_cookie;
}

/*
 * The name of another registered device (or, with @pending, of a pending
 * reset) with @dev's node GUID, or with its reset key @key if it has one;
 * "" for no key and a node_guid of 0; NULL if @dev's identity is unique.
 * Namespaces do not matter here: an identity shared across two of them is
 * still shared.
 */
static const char *ident_shared(struct ib_device *dev, u64 key, bool pending)
{
	struct reset_dev *rd;
	struct ib_reset *r;

	lockdep_assert_held(&reset_lock);
	if (key) {
		list_for_each_entry(rd, &reset_devs, list)
			if (rd->dev != dev &&
			    rd->dev->ops.driver_id == dev->ops.driver_id &&
			    rd->key == key)
				return dev_name(&rd->dev->dev);
		if (!pending)
			return NULL;
		list_for_each_entry(r, &resets, list)
			if (r->dev != dev && r->driver_id == dev->ops.driver_id &&
			    r->key == key)
				return r->name;
		return NULL;
	}
	if (!dev->node_guid)
		return "";
	list_for_each_entry(rd, &reset_devs, list)
		if (rd->dev != dev &&
		    rd->dev->ops.driver_id == dev->ops.driver_id &&
		    rd->dev->node_guid == dev->node_guid)
			return dev_name(&rd->dev->dev);
	if (!pending)
		return NULL;
	list_for_each_entry(r, &resets, list)
		if (r->dev != dev && r->driver_id == dev->ops.driver_id &&
		    r->node_guid == dev->node_guid)
			return r->name;
	return NULL;
}

/*
 * The pending re-registration reset a registering @dev (reset key @key, 0
 * if none) comes back for, not claimed yet, of the same driver and in the
 * same namespace: the one with its key (and its node_guid), else one kept
 * without a key with its node_guid, if no other registered device has
 * that node_guid.
 */
static struct ib_reset *find_reset_for(struct ib_device *dev, u64 key)
{
	struct ib_reset *r;

	lockdep_assert_held(&reset_lock);
	list_for_each_entry(r, &resets, list) {
		if (r->dev || r->coming_back || !key || r->key != key ||
		    r->driver_id != dev->ops.driver_id)
			continue;
		if (r->node_guid != dev->node_guid) {
			dev_info(&dev->dev, "not %s coming back: node GUID %016llx, was %016llx\n",
				 r->name, be64_to_cpu(dev->node_guid),
				 be64_to_cpu(r->node_guid));
			return NULL;
		}
		if (r->net_cookie != dev_net_cookie(dev)) {
			dev_info(&dev->dev, "not %s coming back: registered in another network namespace\n",
				 r->name);
			return NULL;
		}
		return r;
	}
	if (ident_shared(dev, 0, false))
		return NULL;
	list_for_each_entry(r, &resets, list) {
		if (r->dev || r->coming_back || r->key ||
		    r->driver_id != dev->ops.driver_id ||
		    r->node_guid != dev->node_guid)
			continue;
		if (r->net_cookie != dev_net_cookie(dev)) {
			dev_info(&dev->dev, "not %s coming back: registered in another network namespace\n",
				 r->name);
			return NULL;
		}
		return r;
	}
	return NULL;
}

static void reset_uevent(struct kobject *kobj, const char *phase,
			 const char *name, __be64 node_guid)
{
	char ev_phase[32], ev_dev[16 + IB_DEVICE_NAME_MAX], ev_guid[48];
	char *envp[4];

	envp[0] = ev_phase;
	envp[1] = ev_dev;
	envp[2] = ev_guid;
	envp[3] = NULL;
	snprintf(ev_phase, sizeof(ev_phase), "RDMA_RESET=%s", phase);
	snprintf(ev_dev, sizeof(ev_dev), "RDMA_DEVICE=%s", name);
	snprintf(ev_guid, sizeof(ev_guid), "RDMA_NODE_GUID=%016llx",
		 be64_to_cpu(node_guid));
	kobject_uevent_env(kobj, KOBJ_CHANGE, envp);
}

static void reset_timeout_work(struct work_struct *work);

static struct ib_reset *reset_new(struct ib_device *dev, const char *kind)
{
	struct ib_reset *r = kzalloc_obj(*r);

	if (!r)
		return NULL;
	r->driver_id = dev->ops.driver_id;
	r->node_guid = dev->node_guid;
	strscpy(r->name, dev_name(&dev->dev), sizeof(r->name));
	r->kind = kind;
	r->dev = dev;
	r->start = ktime_get();
	INIT_LIST_HEAD(&r->kept);
	INIT_DELAYED_WORK(&r->timeout, reset_timeout_work);
	return r;
}

/*
 * Final teardown of every state @r still keeps, in prepare order.  Each
 * entry is on the failing list while its reset_failed runs, where
 * ib_unregister_client() of its client can see it and wait.
 */
static void reset_fail_kept(struct ib_reset *r)
{
	struct reset_kept *k;

	mutex_lock(&reset_lock);
	while ((k = list_first_entry_or_null(&r->kept, struct reset_kept,
					     list))) {
		list_move_tail(&k->list, &failing);
		mutex_unlock(&reset_lock);

		if (k->client->reset_failed)
			k->client->reset_failed(k->client_data);

		mutex_lock(&reset_lock);
		list_del(&k->list);
		kfree(k);
		WRITE_ONCE(failing_seq, failing_seq + 1);
		wake_up_all(&failing_wq);
	}
	mutex_unlock(&reset_lock);
}

/*
 * Account a finished reset (the ib_reset is off the list) and free it.
 * @dev: the registered device it ended on, whose history it extends and
 * which sends the uevent; NULL when the device is gone (a timeout, a
 * failed re-registration): ib_core's module kobject sends it then.
 */
static void reset_finish(struct ib_reset *r, struct ib_device *dev,
			 const char *outcome)
{
	u64 ms = ktime_ms_delta(ktime_get(), r->start);
	struct reset_dev *rd;

	if (dev) {
		mutex_lock(&reset_lock);
		rd = find_dev(dev);
		if (rd) {
			rd->hist.count++;
			rd->hist.last_ms = ms;
			rd->hist.last_outcome = outcome;
		}
		mutex_unlock(&reset_lock);
	}

	reset_uevent(dev ? &dev->dev.kobj : &THIS_MODULE->mkobj.kobj, outcome,
		     r->name, r->node_guid);
	trace_ib_reset_finish(r->name, r->node_guid, r->kind, outcome, ms);
	pr_info("%s: %s reset %s after %llu ms\n", r->name, r->kind, outcome, ms);
	kfree(r);
}

/*
 * The device of a pending re-registration reset did not come back in time:
 * final teardown for every kept client state.
 */
static void reset_timeout_work(struct work_struct *work)
{
	struct ib_reset *r = container_of(work, struct ib_reset, timeout.work);

	mutex_lock(&reset_lock);
	if (r->coming_back) {
		/* A registering device claimed it; that thread finishes it. */
		mutex_unlock(&reset_lock);
		return;
	}
	list_del(&r->list);
	mutex_unlock(&reset_lock);

	reset_fail_kept(r);
	reset_finish(r, NULL, "timeout");
}

/*
 * ib_register_client(), before anything else: a client takes reset events
 * only with both reset_prepare and reset_done.
 */
int ib_reset_client_check(struct ib_client *client)
{
	if (client_has_reset(client) &&
	    (!client->reset_prepare || !client->reset_done)) {
		pr_warn("%s: a reset-aware client needs reset_prepare and reset_done\n",
			client->name);
		return -EINVAL;
	}
	return 0;
}

/* Take every kept state of @client out of the resets: its final teardown. */
static void reset_forget_client(struct ib_client *client)
{
	struct reset_kept *k, *tmp;
	struct ib_reset *r;
	LIST_HEAD(kept);

	mutex_lock(&reset_lock);
	list_for_each_entry(r, &resets, list)
		list_for_each_entry_safe(k, tmp, &r->kept, list)
			if (k->client == client)
				list_move_tail(&k->list, &kept);
	mutex_unlock(&reset_lock);

	list_for_each_entry_safe(k, tmp, &kept, list) {
		if (client->reset_failed)
			client->reset_failed(k->client_data);
		kfree(k);
	}

	/* Another thread may be running reset_failed on @client's state. */
	for (;;) {
		unsigned long seq;
		bool busy = false;

		mutex_lock(&reset_lock);
		list_for_each_entry(k, &failing, list)
			busy |= k->client == client;
		seq = failing_seq;
		mutex_unlock(&reset_lock);
		if (!busy)
			break;
		wait_event(failing_wq, READ_ONCE(failing_seq) != seq);
	}
}

static struct reset_prekey *find_prekey(struct ib_device *dev)
{
	struct reset_prekey *pk;

	lockdep_assert_held(&reset_lock);
	list_for_each_entry(pk, &prekeys, list)
		if (pk->dev == dev)
			return pk;
	return NULL;
}

/**
 * ib_device_set_reset_key - declare the identity of a device for resets
 * @dev: an allocated device, before ib_register_device(), or a registered
 *	one
 * @key: nonzero: the same value the driver gives the device that replaces
 *	@dev after a re-registration reset, and no other device of the
 *	driver; 0: none
 *
 * For drivers whose resets unregister the device and register a new one
 * (mlx5: its core device stays): with a key, a re-registration reset of
 * @dev (ib_device_reset_expect()) is claimed by the device of the same
 * driver that registers with the same key (and the same node GUID, in the
 * same network namespace), and by no other; without one, ib_core matches
 * by node GUID, and only while that GUID is unique.  Set it before
 * ib_register_device(): a device claims a pending reset when it registers.
 * A key already used by another registered device of the driver is
 * ignored, with a message.
 *
 * Context: process context, may sleep.
 */
void ib_device_set_reset_key(struct ib_device *dev, u64 key)
{
	struct reset_prekey *pk, *new = NULL;
	struct reset_dev *rd;

	if (key)
		new = kzalloc_obj(*new);
	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	if (rd) {
		rd->key = key;
	} else {
		pk = find_prekey(dev);
		if (pk) {
			list_del(&pk->list);
			kfree(pk);
		}
		if (new) {
			new->dev = dev;
			new->key = key;
			list_add_tail(&new->list, &prekeys);
			new = NULL;
		} else if (key) {
			dev_warn(&dev->dev, "no memory for its reset key\n");
		}
	}
	mutex_unlock(&reset_lock);
	kfree(new);
}
EXPORT_SYMBOL(ib_device_set_reset_key);

/**
 * ib_device_reset_expect - mark the next unregistration of @dev as a reset
 * @dev: a registered device
 *
 * For drivers whose reset unregisters the device and registers a new one
 * (mlx5 health recovery, firmware reset, devlink reload): call this before
 * ib_unregister_device().  Reset-aware clients then get reset_prepare, keep
 * their state, and get reset_done when the device that comes back
 * registers within reset_timeout_ms: the one with @dev's reset key
 * (ib_device_set_reset_key()), or, without a key, the one with @dev's
 * driver and node_guid, in the same network namespace.  If that identity
 * is not unique among the registered devices and pending resets (or,
 * without a key, the node_guid is 0), the unregistration is a removal
 * (logged): a shared identity cannot tell the device that comes back.
 *
 * Context: process context, may sleep.
 */
void ib_device_reset_expect(struct ib_device *dev)
{
	struct reset_dev *rd;

	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	if (rd)
		rd->expect = true;
	mutex_unlock(&reset_lock);
	if (!rd)
		dev_warn(&dev->dev, "reset expected, but the device is not registered\n");
}
EXPORT_SYMBOL(ib_device_reset_expect);

/**
 * ib_device_block_reset - count a user an in-place reset would wait for
 * @dev: a registered device
 *
 * For ib_uverbs: a file open on a device whose driver cannot disassociate
 * userspace (no ->disassociate_ucontext) holds the device until it is
 * closed, so taking the device from every client would wait for
 * userspace.  While such a user is counted, ib_device_reset() refuses
 * (-EBUSY).  The count is taken and checked under the lock the reset is
 * published under, so a new user and a starting reset never miss each
 * other.  Balance with ib_device_unblock_reset().
 *
 * Context: process context, may sleep.
 * Return: 0, or -EBUSY while @dev is going down for a reset.
 */
int ib_device_block_reset(struct ib_device *dev)
{
	struct reset_dev *rd;
	struct ib_reset *r;
	int ret = 0;

	mutex_lock(&reset_lock);
	r = find_reset_by_dev(dev);
	rd = find_dev(dev);
	if (r && !r->coming_back)
		ret = -EBUSY;
	else if (rd)
		rd->blocks++;
	/* No record: being unregistered, which waits for this user anyway. */
	mutex_unlock(&reset_lock);
	return ret;
}
EXPORT_SYMBOL(ib_device_block_reset);

/**
 * ib_device_unblock_reset - a user counted by ib_device_block_reset() is gone
 * @dev: the device it was counted on
 *
 * Context: process context, may sleep.
 */
void ib_device_unblock_reset(struct ib_device *dev)
{
	struct reset_dev *rd;

	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	/* The count went with the record if the device is unregistering. */
	if (rd && rd->blocks)
		rd->blocks--;
	mutex_unlock(&reset_lock);
}
EXPORT_SYMBOL(ib_device_unblock_reset);

/**
 * ib_device_is_resetting - is @dev going down or away for a reset?
 * @dev: the device
 *
 * True from the start of an in-place reset or a re-registration reset of
 * @dev until the device is back, i.e. until clients start getting
 * reset_done (or add): a connect that a reset_done callback starts must
 * find the device usable.  For ULPs that must not start using a device
 * that is going down.  Only @dev itself counts: another device with the
 * same node_guid is another device.
 *
 * Context: any process context (takes a mutex).
 * Return: true while a reset of @dev is under way and the device is not
 * back yet.
 */
bool ib_device_is_resetting(struct ib_device *dev)
{
	struct ib_reset *r;
	bool ret;

	mutex_lock(&reset_lock);
	r = find_reset_by_dev(dev);
	ret = r && !r->coming_back;
	mutex_unlock(&reset_lock);
	return ret;
}
EXPORT_SYMBOL(ib_device_is_resetting);

/**
 * ib_device_reset_in_progress - is a reset of @dev under way?
 * @dev: the device
 *
 * True from the start of an in-place reset or a re-registration reset of
 * @dev until every client has had reset_done (or add) on it: wider than
 * ib_device_is_resetting(), which ends when reset_done starts.  For the
 * RDMA stack's own layers, whose state comes back client by client: a
 * connect request that finds no listener while this is true may be for a
 * listener that a later client's reset_done brings back (RDMA CM), so
 * ib_cm leaves it unanswered rather than rejecting it.
 *
 * Context: any process context (takes a mutex).
 * Return: true while a reset of @dev is under way.
 */
bool ib_device_reset_in_progress(struct ib_device *dev)
{
	bool ret;

	mutex_lock(&reset_lock);
	ret = find_reset_by_dev(dev);
	mutex_unlock(&reset_lock);
	return ret;
}
EXPORT_SYMBOL(ib_device_reset_in_progress);

/*
 * Hooks called by device.c.
 */

/* remove_client_context(): true if the reset took the place of ->remove. */
bool ib_reset_client_remove(struct ib_device *dev, struct ib_client *client,
			    void *client_data)
{
	struct reset_kept *k;
	struct ib_reset *r;

	if (!client_has_reset(client))
		return false;
	k = kzalloc_obj(*k);
	mutex_lock(&reset_lock);
	r = find_reset_by_dev(dev);
	if (!r || r->coming_back || !k) {
		mutex_unlock(&reset_lock);
		if (r && !k)
			dev_warn(&dev->dev, "%s: no memory to keep its state across the reset\n",
				 client->name);
		kfree(k);
		return false;
	}
	k->client = client;
	k->client_data = client_data;
	mutex_unlock(&reset_lock);

	trace_ib_reset_client(dev_name(&dev->dev), client->name, "prepare");
	client->reset_prepare(dev, client_data);

	/*
	 * Kept only now, so that no reset_failed can run while reset_prepare
	 * still uses @client_data.  @r is still there: it ends only after
	 * every client has been removed.  @client is too: this runs under
	 * one of its uses, which ib_unregister_client() waits for before it
	 * forgets the client's kept state.
	 */
	mutex_lock(&reset_lock);
	list_add_tail(&k->list, &r->kept);
	mutex_unlock(&reset_lock);
	return true;
}

/* add_client_context(): true if the reset took the place of ->add. */
bool ib_reset_client_add(struct ib_device *dev, struct ib_client *client)
{
	struct reset_kept *k, *found = NULL;
	struct ib_reset *r;

	mutex_lock(&reset_lock);
	r = find_reset_by_dev(dev);
	if (r && r->coming_back) {
		list_for_each_entry(k, &r->kept, list) {
			if (k->client == client) {
				list_del(&k->list);
				found = k;
				break;
			}
		}
	}
	mutex_unlock(&reset_lock);
	if (!found)
		return false;

	ib_set_client_data(dev, client, found->client_data);
	trace_ib_reset_client(dev_name(&dev->dev), client->name, "done");
	client->reset_done(dev, found->client_data);
	kfree(found);
	return true;
}

/*
 * __ib_unregister_device(), before the clients are removed: is this
 * unregistration a reset?
 */
void ib_reset_device_unregistering(struct ib_device *dev)
{
	const char *shared = NULL;
	struct reset_dev *rd;
	struct ib_reset *r;
	bool is_reset;
	u64 key;

	r = reset_new(dev, "re-register");
	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	if (rd)
		list_del(&rd->list);
	key = rd ? rd->key : 0;
	is_reset = (rd && rd->expect) || reset_on_unregister_lists(dev);
	if (is_reset && !find_reset_by_dev(dev))
		shared = ident_shared(dev, key, true);
	if (!is_reset || !r || shared || find_reset_by_dev(dev)) {
		/* A real removal (or a reset that cannot be matched). */
		mutex_unlock(&reset_lock);
		if (shared && key)
			dev_warn(&dev->dev, "reset key %llx is shared with %s: unregistering it is a removal, not a reset\n",
				 key, shared);
		else if (shared)
			dev_warn(&dev->dev, "node GUID %016llx %s%s: unregistering it is a removal, not a reset\n",
				 be64_to_cpu(dev->node_guid),
				 *shared ? "is shared with " : "is zero",
				 shared);
		kfree(rd);
		kfree(r);
		return;
	}
	r->key = key;
	r->net_cookie = dev_net_cookie(dev);
	if (rd)
		r->hist = rd->hist;
	list_add_tail(&r->list, &resets);
	mutex_unlock(&reset_lock);
	kfree(rd);

	reset_uevent(&dev->dev.kobj, "prepare", r->name, r->node_guid);
	trace_ib_reset_prepare(r->name, r->node_guid, r->kind);
}

/*
 * __ib_unregister_device(), once every client is removed or prepared and
 * before the device can be freed: wait for the identity to come back.
 */
void ib_reset_device_unregistered(struct ib_device *dev)
{
	struct ib_reset *r;

	mutex_lock(&reset_lock);
	r = find_reset_by_dev(dev);
	if (r) {
		/*
		 * Wait for the identity even if no client kept state: RDMA CM
		 * keeps listeners of its own, and admins count the reset.
		 */
		r->dev = NULL;
		queue_delayed_work(reset_wq, &r->timeout,
				   msecs_to_jiffies(READ_ONCE(reset_timeout_ms)));
	}
	mutex_unlock(&reset_lock);
}

/*
 * ib_register_device(), once the device is in sysfs and before the clients
 * are added: list it, and claim a pending reset it comes back for
 * (find_reset_for()), so clients get reset_done.
 */
void ib_reset_device_registering(struct ib_device *dev)
{
	struct reset_dev *rd = kzalloc_obj(*rd);
	struct reset_prekey *pk;
	struct ib_reset *r;
	u64 key = 0;

	mutex_lock(&reset_lock);
	pk = find_prekey(dev);
	if (pk) {
		key = pk->key;
		list_del(&pk->list);
		kfree(pk);
	}
	if (key && ident_shared(dev, key, false)) {
		dev_warn(&dev->dev, "reset key %llx is another registered device's: ignored\n",
			 key);
		key = 0;
	}
	r = find_reset_for(dev, key);
	if (r) {
		r->dev = dev;
		r->coming_back = true;
	}
	if (rd) {
		rd->dev = dev;
		rd->key = key;
		rd->hist = r ? r->hist :
			(struct ib_reset_hist){ .last_outcome = "none" };
		list_add_tail(&rd->list, &reset_devs);
	}
	mutex_unlock(&reset_lock);
	if (!rd)
		dev_warn(&dev->dev, "no memory for its reset state: it cannot be reset in place\n");

	/* The timeout sees coming_back and stops; wait for it if it runs. */
	if (r)
		cancel_delayed_work_sync(&r->timeout);
}

/*
 * ib_register_device(), once the clients are added and the device is
 * announced to userspace (so that the uevent is not suppressed with the
 * device's own until then), or right after adding the clients failed
 * (!@ok: the device is being unregistered again).
 */
void ib_reset_device_registered(struct ib_device *dev, bool ok)
{
	struct reset_dev *rd;
	struct ib_reset *r;

	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	if (rd && ok)
		rd->ready = true;
	r = find_reset_by_dev(dev);
	if (r)
		list_del(&r->list);
	mutex_unlock(&reset_lock);

	if (!r)
		return;
	r->dev = NULL;
	/* State of clients that did not come back with the device. */
	reset_fail_kept(r);
	reset_finish(r, ok ? dev : NULL, ok ? "done" : "failed");
}

/* ib_dealloc_device(): a key set for a device that never registered. */
void ib_reset_device_freed(struct ib_device *dev)
{
	struct reset_prekey *pk;

	mutex_lock(&reset_lock);
	pk = find_prekey(dev);
	if (pk)
		list_del(&pk->list);
	mutex_unlock(&reset_lock);
	kfree(pk);
}

/* ib_unregister_client(), after the last callback: forget its state. */
void ib_reset_client_unregistered(struct ib_client *client)
{
	reset_forget_client(client);
}

/*
 * In-place reset.
 */
static int reset_in_place_cb(struct ib_device *dev, void *arg)
{
	struct ib_reset *r = arg;
	int ret;

	ret = dev->ops.reset(dev);
	if (ret) {
		dev_warn(&dev->dev, "driver reset failed (%d): clients get a final teardown and a new add\n",
			 ret);
		reset_fail_kept(r);
	}
	mutex_lock(&reset_lock);
	r->coming_back = true;
	mutex_unlock(&reset_lock);
	return ret;
}

/**
 * ib_device_reset - reset a device in place
 * @dev: a registered device.  The caller keeps the struct alive
 *	(get_device()) but must not hold an ib_device_try_get() reference:
 *	the reset waits for every such reference to be dropped.
 *
 * Reset-aware clients get reset_prepare (in remove order), the driver's
 * ib_device_ops.reset runs, and the clients get reset_done (in add order)
 * on the same device; other clients get remove and add.
 * ib_device_try_get() fails while no client has the device.  A second
 * reset of a device that is resetting is refused, not queued.
 *
 * A driver without a reset op has nothing to reset: the reset is refused
 * rather than cycling every client for nothing.  A driver without
 * ->disassociate_ucontext cannot take the device away from userspace:
 * ib_uverbs would wait for every open file, holding the lock that
 * unregistration needs, so the reset is refused while any is open
 * (ib_device_block_reset()), the rule rdma_dev_change_netns() follows.
 *
 * Context: process context, may sleep for as long as the clients take.
 * Return: 0; -EOPNOTSUPP (no driver reset op); -EBUSY (a reset in progress,
 * the device still being registered, being unregistered or moved to
 * another namespace, or open userspace files that cannot be
 * disassociated); -ENODEV (not registered);
 * -ENOMEM; or the driver's error, after which clients were re-added
 * from scratch.
 */
int ib_device_reset(struct ib_device *dev)
{
	const char *why = NULL;
	struct reset_dev *rd;
	struct ib_reset *r;
	int ret;

	if (!dev->ops.reset) {
		dev_warn(&dev->dev, "reset refused: its driver cannot reset it in place\n");
		return -EOPNOTSUPP;
	}
	r = reset_new(dev, "in-place");
	if (!r)
		return -ENOMEM;
	/*
	 * The reset is visible (ib_device_is_resetting(), the client hooks)
	 * only under unregistration_lock, so that an unregistration or a
	 * namespace move never takes it for its own.  trylock: a reset
	 * triggered through the device's sysfs must not wait for an
	 * unregistration that waits for that sysfs file.
	 */
	if (!mutex_trylock(&dev->unregistration_lock)) {
		kfree(r);
		mutex_lock(&reset_lock);
		why = find_reset_by_dev(dev) ? "a reset is in progress" :
		      "the device is being unregistered or moved";
		mutex_unlock(&reset_lock);
		dev_warn(&dev->dev, "reset refused: %s\n", why);
		return -EBUSY;
	}
	ret = -EBUSY;
	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	if (find_reset_by_dev(dev)) {
		why = "a reset is in progress";
	} else if (!rd) {
		why = "it has no reset state";
		ret = -ENOMEM;
	} else if (!rd->ready) {
		/* Its clients are being added: nothing to cycle yet. */
		why = "the device is still being registered";
	} else if (rd->blocks) {
		why = "userspace has it open and its driver cannot disassociate userspace";
	} else {
		list_add_tail(&r->list, &resets);
		ret = 0;
	}
	mutex_unlock(&reset_lock);
	if (why) {
		mutex_unlock(&dev->unregistration_lock);
		kfree(r);
		dev_warn(&dev->dev, "reset refused: %s\n", why);
		return ret;
	}

	reset_uevent(&dev->dev.kobj, "prepare", r->name, r->node_guid);
	trace_ib_reset_prepare(r->name, r->node_guid, r->kind);

	ret = ib_device_cycle(dev, reset_in_place_cb, r);

	mutex_lock(&reset_lock);
	list_del(&r->list);
	mutex_unlock(&reset_lock);
	mutex_unlock(&dev->unregistration_lock);
	r->dev = NULL;
	/* Not reached by the add pass (e.g. the device never came back up). */
	reset_fail_kept(r);
	reset_finish(r, dev, ret ? "failed" : "done");
	return ret;
}
EXPORT_SYMBOL(ib_device_reset);

/**
 * ib_reset_dev_state() - a device's reset state, for the admin interface
 * @dev: a registered device
 * @hist: filled with a copy of its reset history
 *
 * Return: true while a reset of @dev is in progress.
 */
bool ib_reset_dev_state(struct ib_device *dev, struct ib_reset_hist *hist)
{
	struct reset_dev *rd;
	bool resetting;

	mutex_lock(&reset_lock);
	rd = find_dev(dev);
	*hist = rd ? rd->hist : (struct ib_reset_hist){ .last_outcome = "none" };
	resetting = find_reset_by_dev(dev);
	mutex_unlock(&reset_lock);
	return resetting;
}

/* ib_core_init(). */
int ib_reset_init(void)
{
	reset_wq = alloc_workqueue("ib-reset-wq", WQ_UNBOUND, 0);
	return reset_wq ? 0 : -ENOMEM;
}

/*
 * ib_core_cleanup(): every client and device is gone, so no state is kept
 * any more.  A re-registration reset may still wait for its device (the
 * whole stack unloaded within reset_timeout_ms): time it out now.
 */
void ib_reset_cleanup(void)
{
	struct ib_reset *r;

	mutex_lock(&reset_lock);
	list_for_each_entry(r, &resets, list) {
		pr_info("%s: ib_core unloading, ending its pending reset\n",
			r->name);
		mod_delayed_work(reset_wq, &r->timeout, 0);
	}
	mutex_unlock(&reset_lock);
	destroy_workqueue(reset_wq);	/* runs and waits for them */

	WARN_ON(!list_empty(&resets));
	WARN_ON(!list_empty(&failing));
	WARN_ON(!list_empty(&reset_devs));
	WARN_ON(!list_empty(&prekeys));
}
