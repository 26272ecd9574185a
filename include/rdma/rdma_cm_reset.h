/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * RDMA CM and device resets.
 *
 * Address-bound listeners are kept across a reset of their device and
 * listen again when it is back, with no change to the ULP (see
 * Documentation/infiniband/device-reset.rst).  An id may also ask to be
 * told, through a callback of its own: the values below are deliberately
 * not part of enum rdma_cm_event_type, whose new values every event handler
 * that switches on the type would see.
 */
#ifndef _RDMA_CM_RESET_H
#define _RDMA_CM_RESET_H

struct rdma_cm_id;

enum rdma_cm_reset_event {
	/*
	 * A listener: it was detached and is kept.  Any other id: its
	 * DEVICE_REMOVAL, which follows, is a reset.
	 */
	RDMA_CM_RESET_PREPARE,
	RDMA_CM_RESET_DONE,	/* it listens again on the device that is back */
	RDMA_CM_RESET_FAILED,	/* the device did not come back; DEVICE_REMOVAL follows */
};

typedef void (*rdma_cm_reset_handler)(struct rdma_cm_id *id,
				      enum rdma_cm_reset_event event);

int rdma_set_reset_handler(struct rdma_cm_id *id,
			   rdma_cm_reset_handler handler);

#endif /* _RDMA_CM_RESET_H */
