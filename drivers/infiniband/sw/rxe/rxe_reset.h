/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef RXE_RESET_H
#define RXE_RESET_H

struct ib_device;

int rxe_reset(struct ib_device *ib_dev);

#endif /* RXE_RESET_H */
