/* SPDX-License-Identifier: GPL-2.0 */
/*
 * kvperf-mark: a program that only exits. Linked at a fixed address that
 * nothing else in the guest uses, its first instruction tells tbprof to
 * write the counts so far.
 */
	.globl	_start
	.text
_start:
	mov	$60, %eax	/* exit(0) */
	xor	%edi, %edi
	syscall
