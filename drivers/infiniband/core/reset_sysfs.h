/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * ib_core internal: the admin interface of device resets (reset_sysfs.c),
 * added and removed by device.c as a device registers and unregisters.
 */
#ifndef _IB_RESET_SYSFS_H
#define _IB_RESET_SYSFS_H

struct ib_device;

void ib_reset_sysfs_add(struct ib_device *dev);
void ib_reset_sysfs_remove(struct ib_device *dev);

#endif /* _IB_RESET_SYSFS_H */
