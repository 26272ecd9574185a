/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Device reset events for ib_clients.
 *
 * A device reset is not a removal.  A client that registers reset callbacks
 * for its struct ib_client gets, instead of .remove and a later .add:
 *
 *   reset_prepare(dev, client_data)   in .remove order (reverse registration
 *                                     order), when the device goes down;
 *   reset_done(dev, client_data)      in .add order, when the same device
 *                                     (same driver, same node_guid, same
 *                                     network namespace) is back, with the
 *                                     same client_data;
 *   reset_failed(client_data)         instead of reset_done, when it never
 *                                     comes back: the final teardown.
 *
 * Clients without reset callbacks keep getting plain remove/add.
 *
 * Two kinds of reset lead there:
 *  - in place (ib_device_reset()): the same struct ib_device goes through
 *    prepare -> optional driver reset -> done;
 *  - re-registration: the driver (ib_device_reset_expect()), the admin
 *    (sysfs) or the admin policy (module parameter) marks an unregistration
 *    as a reset; a device that registers later with the same identity
 *    within the reset timeout gets the kept client_data and reset_done.
 *    An identity is used only while it is unique: a node_guid of 0, or one
 *    shared with another registered device, makes the unregistration a
 *    removal.  Tell devices apart by the struct ib_device a callback gets,
 *    never by node_guid.
 *
 * See Documentation/infiniband/device-reset.rst.
 */
#ifndef _RDMA_IB_RESET_H
#define _RDMA_IB_RESET_H

#include <linux/types.h>
#include <rdma/ib_user_ioctl_verbs.h>

struct ib_device;
struct ib_client;

/**
 * struct ib_reset_ops - reset callbacks of a reset-aware ib_client
 * @reset_prepare: the device is about to reset.  Release every hardware
 *	resource (PD, CQ, QP, MR, DMA mappings) and every pointer into @dev;
 *	keep upper-layer state and @client_data.  May sleep.  @dev is valid
 *	only during the call.
 * @reset_done: the device is back: @dev may be a new struct ib_device
 *	(re-registration) with the same driver and node_guid.  Rebuild and
 *	reconnect.  ib_get_client_data(@dev, client) returns @client_data
 *	again.  May sleep.  Called before any later-registered client's
 *	reset_done or add.
 * @reset_failed: the device did not come back within the reset timeout,
 *	or the in-place reset failed, or the client is being unregistered
 *	while its state is kept.  Final teardown: free @client_data.  No
 *	device pointer is passed and none may be used.  May sleep; may run
 *	on ib_core's workqueue, and ib_unregister_client() waits for it.
 */
struct ib_reset_ops {
	void (*reset_prepare)(struct ib_device *dev, void *client_data);
	void (*reset_done)(struct ib_device *dev, void *client_data);
	void (*reset_failed)(void *client_data);
};

int ib_register_client_reset_ops(struct ib_client *client,
				 const struct ib_reset_ops *ops);
void ib_unregister_client_reset_ops(struct ib_client *client);

int ib_device_reset(struct ib_device *dev);
void ib_device_reset_expect(struct ib_device *dev);
bool ib_device_is_resetting(struct ib_device *dev);
int ib_device_block_reset(struct ib_device *dev);
void ib_device_unblock_reset(struct ib_device *dev);

int ib_register_driver_reset(enum rdma_driver_id driver_id,
			     int (*hw_reset)(struct ib_device *dev));
void ib_unregister_driver_reset(enum rdma_driver_id driver_id);

#endif /* _RDMA_IB_RESET_H */
