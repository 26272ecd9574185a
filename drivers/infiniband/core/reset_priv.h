/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ib_core internal: the hooks device.c calls into reset.c, the one device.c
 * service reset.c uses, and what reset.c and its admin interface
 * (reset_sysfs.c) share.
 */
#ifndef _IB_RESET_PRIV_H
#define _IB_RESET_PRIV_H

#include <linux/types.h>

struct ib_device;
struct ib_client;

/*
 * device.c: remove every client, run @fn, add every client back; the
 * caller holds device->unregistration_lock.
 */
int ib_device_cycle(struct ib_device *device,
		    int (*fn)(struct ib_device *device, void *arg), void *arg);

/* reset.c hooks, see the comments at their definitions. */
int ib_reset_client_check(struct ib_client *client);
bool ib_reset_client_remove(struct ib_device *dev, struct ib_client *client,
			    void *client_data);
bool ib_reset_client_add(struct ib_device *dev, struct ib_client *client);
void ib_reset_device_unregistering(struct ib_device *dev);
void ib_reset_device_unregistered(struct ib_device *dev);
void ib_reset_device_registering(struct ib_device *dev);
void ib_reset_device_registered(struct ib_device *dev, bool ok);
void ib_reset_client_unregistered(struct ib_client *client);
void ib_reset_device_freed(struct ib_device *dev);
int ib_reset_init(void);
void ib_reset_cleanup(void);

/* A device's completed resets, as admins see them. */
struct ib_reset_hist {
	unsigned int count;
	u64 last_ms;
	const char *last_outcome;	/* static string */
};

/* reset.c, for the admin interface (reset_sysfs.c). */
bool ib_reset_dev_state(struct ib_device *dev, struct ib_reset_hist *hist);

#endif /* _IB_RESET_PRIV_H */
