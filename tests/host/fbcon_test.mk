# The framebuffer console's drawing, with the font the kernel gets.
fbcon_test_CFLAGS := -Ibuild/gen
fbcon_test_DEPS   := $(FONT_H)
