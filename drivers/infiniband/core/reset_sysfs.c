// SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB
/*
 * The admin interface of device resets: /sys/class/infiniband/<dev>/reset/.
 *
 *   state             "resetting" while a reset of the device is in
 *                     progress, else "idle"
 *   count             completed resets of the device
 *   last_duration_ms  how long the last one took
 *   last_outcome      how it ended: "done", "failed", "timeout"; "none"
 *   trigger           (write 1, CAP_SYS_ADMIN) reset the device in place
 *   expect            (write 1, CAP_SYS_ADMIN) its next unregistration is a
 *                     reset
 *
 * A re-registration reset carries count and the last reset's figures to
 * the device that comes back.
 *
 * The group is added when the device registers and removed when it
 * unregisters (device.c calls in at both); the reset state itself lives in
 * reset.c, read here through ib_reset_dev_state().
 */
#include <linux/capability.h>
#include <linux/kernfs.h>
#include <linux/sysfs.h>
#include <rdma/ib_verbs.h>
#include <rdma/ib_reset.h>

#include "core_priv.h"
#include "reset_priv.h"
#include "reset_sysfs.h"

/* A copy of @device's reset history. */
static struct ib_reset_hist dev_hist(struct device *device)
{
	struct ib_reset_hist hist;

	ib_reset_dev_state(rdma_device_to_ibdev(device), &hist);
	return hist;
}

static ssize_t state_show(struct device *device, struct device_attribute *attr,
			  char *buf)
{
	struct ib_reset_hist hist;
	bool resetting;

	resetting = ib_reset_dev_state(rdma_device_to_ibdev(device), &hist);
	return sysfs_emit(buf, "%s\n", resetting ? "resetting" : "idle");
}
static DEVICE_ATTR_RO(state);

static ssize_t count_show(struct device *device, struct device_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", dev_hist(device).count);
}
static DEVICE_ATTR_RO(count);

static ssize_t last_duration_ms_show(struct device *device,
				     struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", dev_hist(device).last_ms);
}
static DEVICE_ATTR_RO(last_duration_ms);

static ssize_t last_outcome_show(struct device *device,
				 struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", dev_hist(device).last_outcome);
}
static DEVICE_ATTR_RO(last_outcome);

/* Both write-only attributes take "1" and need CAP_SYS_ADMIN. */
static int reset_write_check(struct ib_device *dev, const char *attr,
			     const char *buf)
{
	bool v;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	if (kstrtobool(buf, &v) || !v) {
		dev_warn(&dev->dev, "reset/%s: write 1\n", attr);
		return -EINVAL;
	}
	return 0;
}

static ssize_t trigger_store(struct device *device,
			     struct device_attribute *attr, const char *buf,
			     size_t count)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);
	int ret = reset_write_check(dev, "trigger", buf);

	if (ret)
		return ret;
	ret = ib_device_reset(dev);
	return ret ? ret : count;
}
static DEVICE_ATTR_WO(trigger);

static ssize_t expect_store(struct device *device,
			    struct device_attribute *attr, const char *buf,
			    size_t count)
{
	struct ib_device *dev = rdma_device_to_ibdev(device);
	int ret = reset_write_check(dev, "expect", buf);

	if (ret)
		return ret;
	ib_device_reset_expect(dev);
	return count;
}
static DEVICE_ATTR_WO(expect);

static struct attribute *reset_attrs[] = {
	&dev_attr_state.attr,
	&dev_attr_count.attr,
	&dev_attr_last_duration_ms.attr,
	&dev_attr_last_outcome.attr,
	&dev_attr_trigger.attr,
	&dev_attr_expect.attr,
	NULL,
};

static const struct attribute_group reset_attr_group = {
	.name = "reset",
	.attrs = reset_attrs,
};

void ib_reset_sysfs_add(struct ib_device *dev)
{
	if (sysfs_create_group(&dev->dev.kobj, &reset_attr_group))
		dev_warn(&dev->dev, "no reset attributes in sysfs\n");
}

void ib_reset_sysfs_remove(struct ib_device *dev)
{
	struct kernfs_node *kn;

	/* Absent when registration failed before it was added. */
	kn = kernfs_find_and_get(dev->dev.kobj.sd, reset_attr_group.name);
	if (!kn)
		return;
	kernfs_put(kn);
	sysfs_remove_group(&dev->dev.kobj, &reset_attr_group);
}
