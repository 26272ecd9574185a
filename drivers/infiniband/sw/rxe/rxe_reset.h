/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef RXE_RESET_H
#define RXE_RESET_H

int rxe_reset_init(void);
void rxe_reset_exit(void);

#endif /* RXE_RESET_H */
