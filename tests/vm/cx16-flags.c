// SPDX-License-Identifier: GPL-2.0
/*
 * cx16-flags: do the emulated CPU's flags survive CMPXCHG16B?
 *
 * CMPXCHG16B changes ZF only.  QEMU's TCG before 8.1 ran it in a helper
 * that computed the flags from env->cc_op without first writing back the
 * translator's pending cc_op: after an ADD in the same translation block,
 * whose block began with cc_op EFLAGS (after a POPF, or after a jump back
 * from an earlier CMPXCHG16B), the "flags" it stored were the ADD's source
 * operand.  In the kernel that operand is a pointer (SLUB's lockless
 * fast path retries with cmpxchg16b right after "add %rdi,%rax"), and the
 * next interrupt pushes its bits as RFLAGS: IRETQ then loads TF, NT, AC
 * or IOPL, and the guest dies in a single-step #DB or a double fault.
 *
 * This program runs that sequence in user mode with a source operand of
 * 0x100 (TF) and prints the flags PUSHF sees.  Exit 0: the flags are
 * right, or the CPU has no CMPXCHG16B (the kernel then never uses it);
 * 1: they are wrong.
 */
#include <cpuid.h>
#include <stdio.h>

#define ARITH	0x8d5UL		/* CF PF AF ZF SF OF */

int main(void)
{
	static unsigned __int128 mem;	/* 16-byte aligned, as CMPXCHG16B needs */
	unsigned int a, b, c, d;
	unsigned long flags;

	if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & bit_CMPXCHG16B)) {
		printf("cx16-flags: no CMPXCHG16B on this CPU\n");
		return 0;
	}
	asm volatile("pushq $0x202\n\t"
		     "popfq\n\t"		/* QEMU ends the block: cc_op EFLAGS */
		     "movq $0x100, %%r8\n\t"
		     "xorl %%r9d, %%r9d\n\t"
		     "addq %%r8, %%r9\n\t"	/* 0x100: PF set, the rest clear */
		     "movl $0, %%eax\n\t"
		     "movl $0, %%edx\n\t"
		     "movl $1, %%ebx\n\t"
		     "movl $0, %%ecx\n\t"
		     "cmpxchg16b %[mem]\n\t"	/* equal: ZF set */
		     "pushfq\n\t"
		     "popq %[flags]"
		     : [flags] "=r" (flags), [mem] "+m" (mem)
		     : : "rax", "rbx", "rcx", "rdx", "r8", "r9", "cc");
	/* A CPU: PF and ZF of the arithmetic flags, TF clear. */
	if ((flags & (ARITH | 0x100)) != 0x44) {
		printf("cx16-flags: RFLAGS after CMPXCHG16B %#lx, expected %s\n",
		       flags, "arithmetic flags 0x44 and TF clear: the emulator corrupts RFLAGS");
		return 1;
	}
	printf("cx16-flags: RFLAGS after CMPXCHG16B %#lx: right\n", flags);
	return 0;
}
