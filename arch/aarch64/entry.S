/*
 * entry.S - kernel entry through the Linux arm64 Image header or from
 * the EFI loader, and the entry of the other cores (PSCI CPU_ON).
 *
 *   void _head(uint64_t dtb);           x0 = physical address of the DTB,
 *                                       MMU off, at EL2 or EL1
 *   void efi_entry(struct efi_handoff *h);      the same state, x0 = the
 *                                       loader's handoff (boot/efi/handoff.h)
 *   void secondary_entry(struct ap_start *s);   x0 = PSCI context id
 *
 * Documentation/arch/arm64/booting.rst: the loader puts the Image at a
 * 2 MiB aligned base + text_offset (0: any 2 MiB boundary in RAM, as
 * the header's flags say), with the MMU and D-cache off, and jumps to
 * its first byte with x0 = DTB, x1-x3 = 0.  We drop to EL1 if entered
 * at EL2, turn FP/SIMD on (compiled C uses it), zero .bss, build a boot
 * map of 1 GiB blocks (the GiBs of the kernel and that of the DTB as
 * normal memory, all others device memory: enough for the UART and the
 * blob), turn the MMU and caches on, move the image's absolute
 * addresses to where it runs (boot/reloc.h), and call
 *   void image_boot(uint64_t dtb, uint64_t entry_cycles);   (boot/aarch64)
 * From the EFI loader, every GiB the handoff's ram_gib marks is normal
 * memory instead of the DTB's (the firmware's tables may be anywhere in
 * RAM), and the call is
 *   void efi_boot(struct efi_handoff *h, uint64_t entry_cycles);
 *
 * Register map (primary): x19 DTB or handoff, x20 counter at entry,
 * x21-x23, x25 and x26 scratch of the boot-map loop, x24 1 for the EFI
 * entry.  Secondary: x19 start block.
 */
#include "arch/aarch64/aarch64.h"
#include "boot/efi/handoff.h"

/* The header's flags: little-endian (bit 0 clear), 4 KiB pages (bits
   1-2 = 1), and bit 3, placement anywhere in physical memory: the image
   relocates itself (boot/reloc.h), so any 2 MiB-aligned base will do. */
#define IMAGE_FLAGS ((1 << 1) | (1 << 3))

/* The EFI loader finds this entry by its note (handoff.h). */
    efi_entry_note efi_entry

    .section .text.head, "ax"
    .globl _head
_head:
    b primary_entry                 /* code0 */
    .long 0                         /* code1 */
    .quad 0                         /* text_offset: at a 2 MiB boundary */
    .quad __kernel_end - _head      /* image_size, .bss included */
    .quad IMAGE_FLAGS
    .quad 0, 0, 0
    .ascii "ARM\x64"                /* magic */
    .long 0                         /* no PE/COFF header */

    .section .text.boot, "ax"
    .globl efi_entry
efi_entry:
    mov x24, #1
    b 0f
primary_entry:
    mov x24, #0
0:  mov x19, x0
    bl to_el1
    mrs x20, cntvct_el0
    bl cpu_early
    adrp x0, boot_stack_top
    add x0, x0, :lo12:boot_stack_top
    mov sp, x0

    /* Zero .bss (it holds the boot tables and stack) with the MMU off,
       then invalidate those lines so no stale line from before shadows
       the zeroes once caches are on. */
    adrp x0, __bss_start
    add x0, x0, :lo12:__bss_start
    adrp x1, __bss_end
    add x1, x1, :lo12:__bss_end
1:  cmp x0, x1
    b.hs 2f
    stp xzr, xzr, [x0], #16
    b 1b
2:  adrp x0, __bss_start
    add x0, x0, :lo12:__bss_start
    mrs x2, ctr_el0
    ubfx x2, x2, #16, #4            /* DminLine: log2(words) */
    mov x3, #4
    lsl x2, x3, x2                  /* bytes per line */
3:  dc ivac, x0
    add x0, x0, x2
    cmp x0, x1
    b.lo 3b
    dsb sy

    /* boot_l0[0] -> boot_l1; boot_l1[i] = the i-th GiB. */
    adrp x0, boot_l0
    adrp x1, boot_l1
    orr x2, x1, #(PTE_VALID | PTE_TABLE)
    str x2, [x0]
    adr x21, _head
    lsr x21, x21, #30               /* the kernel's first GiB */
    adrp x26, __kernel_end
    sub x26, x26, #1
    lsr x26, x26, #30               /* and its last */
    lsr x22, x19, #30               /* the DTB's GiB */
    mov x23, #0
4:  lsl x2, x23, #30
    ldr x3, =BLOCK_DEVICE
    cmp x23, x21
    b.eq 5f
    cmp x23, x26
    b.eq 5f
    cbz x24, 11f
    lsr x25, x23, #6                /* EFI: bit x23 of h->ram_gib */
    add x25, x19, x25, lsl #3
    ldr x25, [x25, #EFI_HANDOFF_RAM_GIB]
    lsr x25, x25, x23               /* shifts by x23 mod 64 */
    tbnz x25, #0, 5f
    b 6f
11: cmp x23, x22
    b.ne 6f
5:  ldr x3, =BLOCK_NORMAL
6:  orr x2, x2, x3
    str x2, [x1, x23, lsl #3]
    add x23, x23, #1
    cmp x23, #512
    b.lo 4b

    /* The core-local page (aarch64.h): boot_local through
       boot_local_l2[15] -> boot_local_l3[511], starting with interrupts
       masked and PSTATE.I set (arch_impl.h). */
    adrp x0, boot_local_l2
    adrp x1, boot_local_l3
    orr x2, x1, #(PTE_VALID | PTE_TABLE)
    str x2, [x0, #(LOCAL_L2_INDEX * 8)]
    adrp x0, boot_local
    ldr x2, =LOCAL_PAGE
    orr x2, x0, x2
    str x2, [x1, #(LOCAL_L3_INDEX * 8)]
    mov w2, #1
    strb w2, [x0, #LOCAL_IRQ_OFF]
    mov w2, #IRQ_HARD_OFF
    strb w2, [x0, #LOCAL_IRQ_SLOW]
    dsb sy

    bl mmu_on

    /* The image's absolute addresses to where it runs (boot/reloc.h),
       with the caches on so that no stale line hides the writes. */
    adrp x0, __kernel_start
    add x0, x0, :lo12:__kernel_start
    ldr x1, =__kernel_start         /* the link address: not yet relocated */
    cmp x0, x1
    b.eq 13f
    adrp x2, __relocs_start
    add x2, x2, :lo12:__relocs_start
    adrp x3, __relocs_end
    add x3, x3, :lo12:__relocs_end
    sub x3, x3, x2
    mov x4, #1
    bl reloc_apply
    cbnz w0, 14f                    /* no console to say it on: stop */
    ic iallu
    dsb ish
    isb
13: mov x0, x19
    mov x1, x20
    mov x29, #0                     /* ends the backtrace */
    mov x30, #0
    cbnz x24, 12f
    bl image_boot
    b 7f
12: bl efi_boot
7:  wfi
    b 7b
14: wfe                             /* w0: what reloc_apply found wrong */
    b 14b

/* Secondary cores: the same way up, onto the kernel's final tables. */
    .globl secondary_entry
secondary_entry:
    mov x19, x0
    bl to_el1
    bl cpu_early
    ldr x0, [x19, #AP_TTBR]
    ldr x1, [x19, #AP_TTBR1]
    bl mmu_on_with
    ldr x0, [x19, #AP_STACK_TOP]
    mov sp, x0
    ldr x0, [x19, #AP_CPU]
    mov x29, #0
    mov x30, #0
    bl ap_entry
8:  wfi
    b 8b

/*
 * to_el1: if running at EL2, set EL1 up as an AArch64 kernel may want it
 * (timer and counter accessible, no FP trap, GICv3 system registers
 * usable) and drop to EL1h with every exception masked.  Clobbers x0.
 */
to_el1:
    mrs x0, CurrentEL
    cmp x0, #(2 << 2)
    b.ne 9f
    mov x0, #HCR_RW
    msr hcr_el2, x0
    mov x0, #CNTHCTL_EL1PCEN
    msr cnthctl_el2, x0
    msr cntvoff_el2, xzr            /* CNTVCT = CNTPCT on every core */
    mov x0, #CPTR_EL2_RES1
    msr cptr_el2, x0
    msr hstr_el2, xzr
    msr vttbr_el2, xzr
    mrs x0, id_aa64pfr0_el1
    ubfx x0, x0, #24, #4            /* GIC system register interface */
    cbz x0, 10f
    mrs x0, S3_4_C12_C9_5           /* ICC_SRE_EL2: SRE, Enable (EL1) */
    orr x0, x0, #1
    orr x0, x0, #8
    msr S3_4_C12_C9_5, x0
    isb
10: ldr x0, =SCTLR_RES1
    msr sctlr_el1, x0
    mov x0, #SPSR_EL1H_MASKED
    msr spsr_el2, x0
    msr elr_el2, x30
    eret
9:  ret

/* cpu_early: mask exceptions, FP/SIMD on.  Clobbers x0. */
cpu_early:
    msr daifset, #0xf
    mov x0, #CPACR_FPEN
    msr cpacr_el1, x0
    isb
    ret

/*
 * mmu_on / mmu_on_with(x0 = TTBR0, x1 = TTBR1): memory attributes,
 * translation control with the CPU's physical address size, the tables,
 * TLB invalidated, then MMU and caches on.  Clobbers x0-x2.
 */
mmu_on:
    adrp x0, boot_l0
    adrp x1, boot_local_l2
mmu_on_with:
    msr ttbr1_el1, x1
    ldr x1, =MAIR_VALUE
    msr mair_el1, x1
    mrs x1, id_aa64mmfr0_el1
    and x1, x1, #7                  /* PARange */
    cmp x1, #5
    mov x2, #5
    csel x1, x1, x2, ls             /* 52-bit PAs need other formats */
    lsl x1, x1, #TCR_IPS_SHIFT
    ldr x2, =TCR_VALUE
    orr x1, x1, x2
    msr tcr_el1, x1
    msr ttbr0_el1, x0
    isb
    tlbi vmalle1
    dsb nsh
    isb
    ldr x0, =SCTLR_MMU_ON
    msr sctlr_el1, x0
    isb
    ret

    .section .bss
    .balign 4096
boot_l0:    .skip 4096
boot_l1:    .skip 4096
boot_local_l2:  .skip 4096
boot_local_l3:  .skip 4096
boot_local:     .skip 4096
    .globl boot_stack_bottom, boot_stack_top
boot_stack_bottom:
    .skip 16384
boot_stack_top:
