/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * rdma_cm internal: cma.c <-> cma_reset.c.
 */
#ifndef _CMA_RESET_H
#define _CMA_RESET_H

#include <linux/types.h>

struct ib_device;
struct rdma_id_private;

/* cma.c services, for cma_reset.c. */
bool cma_reset_is_bound_listener(struct rdma_id_private *id_priv);
struct rdma_id_private *cma_reset_next_bound_listener(struct ib_device *device);
void cma_reset_detach(struct rdma_id_private *id_priv);
int cma_reset_attach(struct rdma_id_private *id_priv, struct ib_device *device);
void cma_reset_id_get(struct rdma_id_private *id_priv);
void cma_reset_id_put(struct rdma_id_private *id_priv);
void cma_reset_remove_put(struct rdma_id_private *id_priv);

/* cma_reset.c hooks, for cma.c. */
void cma_reset_forget(struct rdma_id_private *id_priv);
void cma_reset_notify_removal(struct rdma_id_private *id_priv);
int cma_reset_init(void);
void cma_reset_exit(void);

#endif /* _CMA_RESET_H */
