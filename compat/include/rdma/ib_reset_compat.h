/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * The device reset API on Linux 6.12, with the kernel's module ABI kept.
 *
 * Upstream, a client's reset callbacks are fields of struct ib_client and
 * a driver's in-place reset is ib_device_ops.reset.  On 6.12 neither struct
 * may change as Debian's stock modules see it: genksyms folds both into the
 * CRC of every symbol that takes them (ib_register_client(), and through
 * struct ib_device nearly all of ib_core), and ib_device_ops is embedded in
 * struct ib_device, whose layout every stock driver depends on.  So, in the
 * 6.12 builds only (compat/patches):
 *
 *  - struct ib_client has the three reset callbacks at its end, hidden from
 *    genksyms (#ifndef __GENKSYMS__), so every CRC stays.  Stock modules
 *    register a shorter struct, which ib_core must never read past: modules
 *    built from this set register through ib_register_reset_client() (the
 *    header maps ib_register_client() onto it), which records the client as
 *    one that has the fields; ib_reset_compat_client() tells reset.c.
 *
 *  - ib_device_ops has no reset op; a driver registers its in-place reset
 *    by driver id instead (ib_register_driver_reset()), and reset.c looks
 *    it up with ib_reset_compat_device_op().
 *
 * None of this is in the upstream series: see compat/README.
 */
#ifndef _RDMA_IB_RESET_COMPAT_H
#define _RDMA_IB_RESET_COMPAT_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_verbs.h>

#define IB_RESET_COMPAT 1

struct ib_client;
struct ib_device;

typedef int (*ib_reset_compat_op)(struct ib_device *dev);

int ib_register_reset_client(struct ib_client *client);
void ib_unregister_reset_client(struct ib_client *client);
bool ib_reset_compat_client(const struct ib_client *client);

int ib_register_driver_reset(enum rdma_driver_id driver_id,
			     ib_reset_compat_op reset);
void ib_unregister_driver_reset(enum rdma_driver_id driver_id);
ib_reset_compat_op ib_reset_compat_device_op(const struct ib_device *dev);

#endif /* _RDMA_IB_RESET_COMPAT_H */
