/*
 * gop.c - the firmware's framebuffer for the kernel's console (gop.h).
 *
 * The first Graphics Output Protocol instance LocateProtocol finds is
 * the one used; on a PC it drives the screen the firmware console is on.
 * Its framebuffer is device memory (a PCI BAR, normally outside the
 * memory map): the kernel reserves it whatever the map says
 * (kernel/fbcon.c) and maps it as device memory.  Only linear 32-bit
 * pixels are handed over: PixelBltOnly has no framebuffer to write, and
 * bit-mask modes of 16 or 24 bits are left out.
 */
#include <efi.h>
#include <efilib.h>
#include "boot/efi/gop.h"

/* The highest bit set in m, or -1. */
static int top_bit(uint32_t m)
{
    return m ? 31 - __builtin_clz(m) : -1;
}

/* Why the mode cannot be handed over, or NULL if it can (then *fb has
   its layout: format, masks, width, height, stride). */
static const char *unusable(const EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *m,
                            struct bootfb *fb)
{
    const EFI_PIXEL_BITMASK *b = &m->PixelInformation;

    switch (m->PixelFormat) {
    case PixelRedGreenBlueReserved8BitPerColor:
        fb->format = BOOTFB_RGB;
        break;
    case PixelBlueGreenRedReserved8BitPerColor:
        fb->format = BOOTFB_BGR;
        break;
    case PixelBitMask:
        /* The pixel's size is set by the highest bit of any mask. */
        if (top_bit(b->RedMask | b->GreenMask | b->BlueMask | b->ReservedMask) < 24)
            return "its pixels are fewer than 32 bits";
        if (!b->RedMask || !b->GreenMask || !b->BlueMask ||
            (b->RedMask & b->GreenMask) || (b->RedMask & b->BlueMask) ||
            (b->GreenMask & b->BlueMask))
            return "its colour masks are empty or overlap";
        fb->format = BOOTFB_BITMASK;
        fb->red_mask = b->RedMask;
        fb->green_mask = b->GreenMask;
        fb->blue_mask = b->BlueMask;
        break;
    case PixelBltOnly:
        return "it has no linear framebuffer (PixelBltOnly)";
    default:
        return "its pixel format is unknown";
    }
    if (!m->HorizontalResolution || !m->VerticalResolution ||
        m->PixelsPerScanLine < m->HorizontalResolution)
        return "its geometry is impossible";
    fb->width = m->HorizontalResolution;
    fb->height = m->VerticalResolution;
    fb->stride = m->PixelsPerScanLine;
    return 0;
}

/* The usable mode with the most pixels, or -1. */
static INT32 best_mode(EFI_GRAPHICS_OUTPUT_PROTOCOL *gop)
{
    INT32 best = -1;
    uint64_t most = 0;

    for (UINT32 i = 0; i < gop->Mode->MaxMode; i++) {
        EFI_GRAPHICS_OUTPUT_MODE_INFORMATION *m;
        struct bootfb fb = { 0 };
        UINTN size;

        if (EFI_ERROR(uefi_call_wrapper(gop->QueryMode, 4, gop, i, &size, &m)))
            continue;
        if (!unusable(m, &fb) && (uint64_t)fb.width * fb.height > most) {
            most = (uint64_t)fb.width * fb.height;
            best = i;
        }
        FreePool(m);
    }
    return best;
}

void gop_find(struct bootfb *fb, gop_note_fn *note)
{
    EFI_GRAPHICS_OUTPUT_PROTOCOL *gop;
    const char *why;
    INT32 other;

    ZeroMem(fb, sizeof *fb);
    if (EFI_ERROR(uefi_call_wrapper(BS->LocateProtocol, 3, &GraphicsOutputProtocol,
                                    NULL, (void **)&gop)) || !gop->Mode) {
        note("no graphics output protocol: the console is the serial port only", 0, 0);
        return;
    }
    why = gop->Mode->Mode < gop->Mode->MaxMode && gop->Mode->Info
              ? unusable(gop->Mode->Info, fb) : "none is set";
    if (why) {
        other = best_mode(gop);
        if (other < 0 ||
            EFI_ERROR(uefi_call_wrapper(gop->SetMode, 2, gop, (UINT32)other))) {
            note("the graphics mode is of no use to the console (", why,
                 "), nor is any other: the console is the serial port only");
            ZeroMem(fb, sizeof *fb);
            return;
        }
        note("the graphics mode was of no use to the console (", why,
             "); switched to the largest usable one");
        ZeroMem(fb, sizeof *fb);
        if (unusable(gop->Mode->Info, fb)) {
            ZeroMem(fb, sizeof *fb);
            return;             /* the firmware lied about the mode */
        }
    }
    /* 32-bit pixels: the rows must fit the framebuffer. */
    if (!gop->Mode->FrameBufferBase ||
        gop->Mode->FrameBufferSize / 4 / fb->stride < fb->height) {
        note("the graphics mode's framebuffer is missing or smaller than its "
             "pixels: the console is the serial port only", 0, 0);
        ZeroMem(fb, sizeof *fb);
        return;
    }
    fb->base = gop->Mode->FrameBufferBase;
    fb->size = gop->Mode->FrameBufferSize;
}
