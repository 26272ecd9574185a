/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Device reset events for ib_clients.
 *
 * A device reset is not a removal.  A client that sets the reset callbacks
 * of its struct ib_client gets, instead of .remove and a later .add:
 *
 *   reset_prepare(dev, client_data)   in .remove order (reverse registration
 *                                     order), when the device goes down:
 *                                     release every hardware resource (PD,
 *                                     CQ, QP, MR, DMA mappings) and every
 *                                     pointer into @dev, keep upper-layer
 *                                     state and client_data;
 *   reset_done(dev, client_data)      in .add order, when the device is back
 *                                     (@dev may be a new struct ib_device),
 *                                     with the same client_data, which
 *                                     ib_get_client_data() returns again:
 *                                     rebuild and reconnect;
 *   reset_failed(client_data)         instead of reset_done, when it never
 *                                     comes back, the in-place reset failed,
 *                                     or the client is unregistered while
 *                                     its state is kept: the final teardown.
 *                                     No device pointer is passed and none
 *                                     may be used.  Optional.
 *
 * All three may sleep; reset_failed may run on ib_core's workqueue, and
 * ib_unregister_client() waits for it.  reset_prepare and reset_done go
 * together: ib_register_client() refuses a client with only one of them.
 * Clients without reset callbacks keep getting plain remove/add.
 *
 * Two kinds of reset lead there:
 *  - in place (ib_device_reset()): the same struct ib_device goes through
 *    prepare -> the driver's ib_device_ops.reset -> done;
 *  - re-registration: the driver (ib_device_reset_expect()), the admin
 *    (sysfs) or the admin's list of drivers (ib_core's reset_on_unregister)
 *    marks an unregistration as a reset; the device that registers later
 *    with the same identity within the reset timeout gets the kept
 *    client_data and reset_done.  The identity is the reset key the
 *    driver declared (ib_device_set_reset_key()), or, for a driver that
 *    declares none, the node_guid, used only while it is unique: a
 *    node_guid of 0, or one shared with another registered device, makes
 *    the unregistration a removal.  Tell devices apart by the struct
 *    ib_device a callback gets, never by node_guid.
 *
 * See Documentation/infiniband/device-reset.rst.
 */
#ifndef _RDMA_IB_RESET_H
#define _RDMA_IB_RESET_H

#include <linux/types.h>

struct ib_device;

int ib_device_reset(struct ib_device *dev);
void ib_device_reset_expect(struct ib_device *dev);
void ib_device_set_reset_key(struct ib_device *dev, u64 key);
bool ib_device_is_resetting(struct ib_device *dev);
bool ib_device_reset_in_progress(struct ib_device *dev);
int ib_device_block_reset(struct ib_device *dev);
void ib_device_unblock_reset(struct ib_device *dev);

#endif /* _RDMA_IB_RESET_H */
