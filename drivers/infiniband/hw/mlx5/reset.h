/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
#ifndef _MLX5_IB_RESET_H
#define _MLX5_IB_RESET_H

struct mlx5_ib_dev;

void mlx5r_reset_declare(struct mlx5_ib_dev *dev);
void mlx5r_reset_expect(struct mlx5_ib_dev *dev);
void mlx5r_reset_unload(void);

#endif /* _MLX5_IB_RESET_H */
