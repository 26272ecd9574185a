// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * Device resets, declared to ib_core (include/rdma/ib_reset.h).
 *
 * For a devlink reload, a firmware reset, health recovery and PCI error
 * recovery, mlx5_core unloads and loads the same core device again
 * (mlx5_unload_one() and mlx5_load_one(): its detach and attach).  The
 * "rdma" auxiliary device goes and comes with it, so mlx5_ib unregisters
 * its ib_device and registers a new one on the same core device.  It
 * declares both ends of that:
 *  - the identity: the core device, which stays across those resets, is
 *    the reset key of the ib_device registered on it;
 *  - the reset: an unregistration made by the detach is marked as a reset
 *    (ib_device_reset_expect()), any other is a removal.
 *
 * mlx5_core flags no "detach in progress" that its auxiliary drivers could
 * see (MLX5_PRIV_FLAGS_DETACH is set only once the devices are gone), but
 * it does flag, before it removes the devices, every other removal:
 *  - MLX5_PRIV_FLAGS_DISABLE_ALL_ADEV: mlx5_unregister_device(), on a PCI
 *    remove or an unbind of mlx5_core;
 *  - MLX5_BREAK_FW_WAIT: a PCI remove or shutdown;
 *  - MLX5_PRIV_FLAGS_DISABLE_IB_ADEV: a reconfiguration that removes the
 *    RDMA devices for good or builds other ones (LAG; on newer kernels an
 *    eswitch mode change too);
 *  - the switchdev eswitch mode: the plain device gives way to a
 *    representor;
 *  - a PCI channel in permanent failure: the function will not come back;
 * and mlx5_ib knows its own unload.  What is left is the detach of a
 * reset, and an unbind of the auxiliary device through sysfs, which looks
 * like a reset whose device never comes back: its clients' state is kept
 * for ib_core's reset_timeout_ms, then torn down.
 *
 * A representor comes back from a reset as a plain device (the reset
 * leaves the eswitch in legacy mode), and an SMI sub-device shares its
 * parent's core device: neither declares anything.
 */
#include <linux/pci.h>
#include <linux/mlx5/driver.h>
#include <linux/mlx5/eswitch.h>
#include <rdma/ib_reset.h>

#include "mlx5_ib.h"
#include "reset.h"

/* mlx5_ib's module exit: every removal from now on is final. */
static bool mlx5r_unloading;

static bool mlx5r_reset_capable(struct mlx5_ib_dev *dev)
{
	return !dev->is_rep && !dev->sub_dev_name;
}

/**
 * mlx5r_reset_declare - give a device its identity for resets
 * @dev: a device about to be registered
 *
 * Its core device, which the device that replaces it after a reset has
 * too.
 */
void mlx5r_reset_declare(struct mlx5_ib_dev *dev)
{
	if (mlx5r_reset_capable(dev))
		ib_device_set_reset_key(&dev->ib_dev, (unsigned long)dev->mdev);
}

/**
 * mlx5r_reset_expect - mark the coming unregistration of @dev as a reset
 *	if mlx5_core is detaching the device for one
 * @dev: a registered device, in the removal of its auxiliary device
 */
void mlx5r_reset_expect(struct mlx5_ib_dev *dev)
{
	struct mlx5_core_dev *mdev = dev->mdev;

	if (!mlx5r_reset_capable(dev) || READ_ONCE(mlx5r_unloading))
		return;
	if (mdev->priv.flags & (MLX5_PRIV_FLAGS_DISABLE_ALL_ADEV |
				MLX5_PRIV_FLAGS_DISABLE_IB_ADEV))
		return;
	if (test_bit(MLX5_BREAK_FW_WAIT, &mdev->intf_state))
		return;
	if (mdev->pdev->error_state == pci_channel_io_perm_failure)
		return;
	if (is_mdev_switchdev_mode(mdev))
		return;
	ib_device_reset_expect(&dev->ib_dev);
}

/**
 * mlx5r_reset_unload - mlx5_ib is unloading: no removal is a reset
 */
void mlx5r_reset_unload(void)
{
	WRITE_ONCE(mlx5r_unloading, true);
}
