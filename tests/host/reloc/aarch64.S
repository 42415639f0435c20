/*
 * aarch64.S - one site of every relocation type tools/build/relocs.c
 * accepts for aarch64 (reloc_test.c checks that none is missing), GOT
 * slots of an image symbol, an absolute one and an undefined weak one,
 * and targets that must stay: an absolute symbol (abs_sym, fixture.ld's),
 * an undefined weak one.
 */
    .globl func, data_obj, near
    .weak weak_undef

    .text
    .globl _start
_start:
    adrp x0, data_obj                       /* ADR_PREL_PG_HI21 */
    add x0, x0, :lo12:data_obj              /* ADD_ABS_LO12_NC */
    ldrb w1, [x0, :lo12:data_obj]           /* LDST8_ABS_LO12_NC */
    ldrh w1, [x0, :lo12:data_obj]           /* LDST16_ABS_LO12_NC */
    ldr w1, [x0, :lo12:data_obj]            /* LDST32_ABS_LO12_NC */
    ldr x1, [x0, :lo12:data_obj]            /* LDST64_ABS_LO12_NC */
    ldr q1, [x0, :lo12:data_obj]            /* LDST128_ABS_LO12_NC */
    adr x2, near                            /* ADR_PREL_LO21 */
    ldr x3, near                            /* LD_PREL_LO19 */
    tbz x0, #0, near                        /* TSTBR14 */
    b.eq near                               /* CONDBR19 */
    bl func                                 /* CALL26 */
    adrp x4, :got:data_obj                  /* ADR_GOT_PAGE */
    ldr x4, [x4, :got_lo12:data_obj]        /* LD64_GOT_LO12_NC */
    adrp x5, :got:abs_sym
    ldr x5, [x5, :got_lo12:abs_sym]
    adrp x6, :got:weak_undef
    ldr x6, [x6, :got_lo12:weak_undef]
    mrs x7, tpidr_el0
    add x7, x7, #:tprel_hi12:tls_var        /* TLSLE_ADD_TPREL_HI12 */
    add x7, x7, #:tprel_lo12:tls_var        /* TLSLE_ADD_TPREL_LO12 */
    add x7, x7, #:tprel_lo12_nc:tls_var     /* TLSLE_ADD_TPREL_LO12_NC */
    ldr x8, =data_obj                       /* ABS64 in the literal pool */
    b func                                  /* JUMP26 */
    .ltorg

    .section .text.other, "ax"
    .balign 8
near:
    .quad 0
func:
    ret

    .section .rodata
    .balign 8
    .quad data_obj                          /* ABS64 */
    .quad abs_sym
    .quad weak_undef
    .quad data_obj - .                      /* PREL64 */
    .long data_obj - .                      /* PREL32 */
    .long data_obj                          /* ABS32 */
    .hword near - .                         /* PREL16 */

    .data
    .balign 16
data_obj:
    .quad func                              /* ABS64 */
    .quad 0

    .section .tdata, "awT", %progbits
tls_var:
    .long 1
