// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Linux 6.12 only: the side tables that stand in for the struct fields the
 * upstream reset API adds, see include/rdma/ib_reset_compat.h.
 */
#define pr_fmt(fmt) "rdma_reset: " fmt

#include <linux/list.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

/* This file defines what the header maps the stock names onto. */
#undef ib_register_client
#undef ib_unregister_client

/*
 * compat_lock protects both tables.  It is the innermost lock: nothing is
 * called with it held.
 */
static DEFINE_MUTEX(compat_lock);

/*
 * Clients whose struct ib_client has the reset callbacks (registered
 * through ib_register_reset_client()), from just before ib_register_client()
 * until ib_unregister_client() has returned.
 */
struct compat_client {
	struct list_head list;
	const struct ib_client *client;
};

static LIST_HEAD(compat_clients);

/* In-place reset ops, by enum rdma_driver_id. */
#define COMPAT_MAX_DRIVERS	64
static ib_reset_compat_op driver_reset[COMPAT_MAX_DRIVERS];

/**
 * ib_reset_compat_client - does @client's struct have the reset callbacks?
 * @client: a client being registered or registered
 *
 * Context: process context, may sleep.
 * Return: true for a client registered with ib_register_reset_client().
 */
bool ib_reset_compat_client(const struct ib_client *client)
{
	struct compat_client *c;
	bool ret = false;

	mutex_lock(&compat_lock);
	list_for_each_entry(c, &compat_clients, list) {
		if (c->client == client) {
			ret = true;
			break;
		}
	}
	mutex_unlock(&compat_lock);
	return ret;
}

static void compat_client_del(const struct ib_client *client)
{
	struct compat_client *c;

	mutex_lock(&compat_lock);
	list_for_each_entry(c, &compat_clients, list) {
		if (c->client == client) {
			list_del(&c->list);
			kfree(c);
			break;
		}
	}
	mutex_unlock(&compat_lock);
}

/**
 * ib_register_reset_client - ib_register_client() for a client built with
 *	the reset callbacks in its struct ib_client
 * @client: the client
 *
 * Modules built from this set call it wherever their source says
 * ib_register_client().
 *
 * Context: process context, may sleep.
 * Return: as ib_register_client(), or -ENOMEM.
 */
int ib_register_reset_client(struct ib_client *client)
{
	struct compat_client *c = kzalloc(sizeof(*c), GFP_KERNEL);
	int ret;

	if (!c)
		return -ENOMEM;
	c->client = client;
	mutex_lock(&compat_lock);
	list_add_tail(&c->list, &compat_clients);
	mutex_unlock(&compat_lock);

	ret = ib_register_client(client);
	if (ret)
		compat_client_del(client);
	return ret;
}
EXPORT_SYMBOL(ib_register_reset_client);

/**
 * ib_unregister_reset_client - ib_unregister_client() for a client
 *	registered with ib_register_reset_client()
 * @client: the client
 *
 * Context: process context, may sleep.
 */
void ib_unregister_reset_client(struct ib_client *client)
{
	ib_unregister_client(client);
	compat_client_del(client);
}
EXPORT_SYMBOL(ib_unregister_reset_client);

/**
 * ib_register_driver_reset - register a driver's in-place reset op
 * @driver_id: the driver's enum rdma_driver_id
 * @reset: what ib_device_ops.reset does upstream
 *
 * Context: process context, may sleep.
 * Return: 0, -EINVAL for a bad driver id or no op, -EBUSY if one is
 * registered.
 */
int ib_register_driver_reset(enum rdma_driver_id driver_id,
			     ib_reset_compat_op reset)
{
	int ret = 0;

	if (driver_id >= COMPAT_MAX_DRIVERS || !reset) {
		pr_warn("driver %u: bad in-place reset registration\n",
			driver_id);
		return -EINVAL;
	}
	mutex_lock(&compat_lock);
	if (driver_reset[driver_id])
		ret = -EBUSY;
	else
		driver_reset[driver_id] = reset;
	mutex_unlock(&compat_lock);
	return ret;
}
EXPORT_SYMBOL(ib_register_driver_reset);

/**
 * ib_unregister_driver_reset - unregister a driver's in-place reset op
 * @driver_id: the driver's enum rdma_driver_id
 *
 * Context: process context, may sleep.  The driver has unregistered its
 * devices (ib_unregister_driver()), so no reset of one is running.
 */
void ib_unregister_driver_reset(enum rdma_driver_id driver_id)
{
	if (driver_id >= COMPAT_MAX_DRIVERS)
		return;
	mutex_lock(&compat_lock);
	driver_reset[driver_id] = NULL;
	mutex_unlock(&compat_lock);
}
EXPORT_SYMBOL(ib_unregister_driver_reset);

/**
 * ib_reset_compat_device_op - the in-place reset op of @dev's driver
 * @dev: a device
 *
 * Context: process context, may sleep.
 * Return: the op, or NULL if the driver registered none.
 */
ib_reset_compat_op ib_reset_compat_device_op(const struct ib_device *dev)
{
	ib_reset_compat_op op = NULL;

	mutex_lock(&compat_lock);
	if (dev->ops.driver_id < COMPAT_MAX_DRIVERS)
		op = driver_reset[dev->ops.driver_id];
	mutex_unlock(&compat_lock);
	return op;
}
