# kernel/initrd.mk - file trees for images (kernel/initrd.h): a folder
# packed into a cpio "newc" archive (tools/build/mkcpio.py --tree), then
# linked into an image (tools/build/files.S) or handed to the boot path
# as the initrd.  Included by the Makefile after ports/ports.mk, whose
# programs APP may name.
#
#   FILES=dir/    run, gdb, trace, profile and image take the image with
#                 dir's tree linked in, build/<arch>/files/<name>.elf:
#                 an app's objects linked again with the archive, or a
#                 spindle-cc image (a port's program, ELF=) linked again
#                 from the <name>.prog.o spindle-cc left beside it; the
#                 plain image stays as it is
#   INITRD=dir/   they boot with dir's tree as the initrd (packed into
#   INITRD=X.cpio build/<arch>/files/<name>.initrd.cpio), or with X.cpio
#                 as it is: tools/run/qemu.sh's INITRD
#
# A test variant whose test.conf has a `files` line gets an image of its
# own, build/<arch>/<variant>.elf: the objects of the test its `image`
# names, linked with that folder's archive (<variant>.cpio beside it).
#
# An archive is packed on every make that needs it and rewritten only
# when its bytes change, so that an image is relinked only then.

# $(call CPIO,ARCHIVE,FOLDER): ARCHIVE, FOLDER's tree.
define CPIO
$(1): FORCE | $(DEPS)
	$$(call msg,CPIO,$$@)
	$(Q)mkdir -p $$(@D)
	$(Q)python3 tools/build/mkcpio.py --tree $$@ $(2)
endef

# $(call FILES_OBJ,STEM): STEM.files.o, the archive STEM.cpio as
# files.S's section.
define FILES_OBJ
$(1).files.o: $(1).cpio tools/build/files.S
	$$(call msg,AS,$$@)
	$(Q)$(CC) -c -DFILES_CPIO='"$(1).cpio"' -o $$@ tools/build/files.S
endef

# FILES= and INITRD=, as RUN_ELF and RUN_INITRD (the Makefile's targets
# boot those).
FILES_DIR  := $(patsubst %/,%,$(FILES))
INITRD_DIR := $(patsubst %/,%,$(INITRD))
FILES_STEM := $(B)/files/$(APP_NAME)
ifneq ($(FILES),)
ifeq ($(wildcard $(FILES_DIR)/.),)
$(error FILES=$(FILES): no such folder)
endif
$(eval $(call CPIO,$(FILES_STEM).cpio,$(FILES_DIR)))
ifneq ($(ELF)$(PORT_ELF_$(APP)),)
$(FILES_STEM).elf: $(APP_ELF) $(FILES_STEM).cpio $(if $(filter hosted,$(ARCH)),,$(TOOLCHAIN))
	$(call msg,LD,$@)
	$(Q)[ "$(ARCH)" != hosted ] || { echo "FILES= with ELF=: the hosted build has no spindle-cc; use APP="; exit 1; }
	$(Q)[ -f $(basename $(APP_ELF)).prog.o ] || { echo "FILES=: no $(basename $(APP_ELF)).prog.o" \
	    "beside $(APP_ELF) to link again (spindle-cc leaves one with every image it links)"; exit 1; }
	$(Q)$(TOOLCHAIN) -o $@ $(basename $(APP_ELF)).prog.o --files-archive $(FILES_STEM).cpio
else
$(eval $(call FILES_OBJ,$(FILES_STEM)))
$(eval $(call $(IMAGE_RULE),apps/$(APP),files/$(APP),$(FILES_STEM).files.o))
endif
endif
ifneq ($(INITRD),)
ifneq ($(wildcard $(INITRD_DIR)/.),)
RUN_INITRD := $(FILES_STEM).initrd.cpio
$(eval $(call CPIO,$(RUN_INITRD),$(INITRD_DIR)))
else ifneq ($(wildcard $(INITRD)),)
RUN_INITRD := $(INITRD)
else
$(error INITRD=$(INITRD): no such folder or file)
endif
endif

# The test variants with a `files` line: "variant:folder:image" words.
TEST_FILES := $(shell awk '$$1 == "files" { f[FILENAME] = $$2 } $$1 == "image" { i[FILENAME] = $$2 } \
                END { for (k in f) { d = k; sub("/test.conf$$", "", d); print d ":" f[k] ":" i[k] } }' \
                $(wildcard tests/*/*/test.conf))
test_files_var = $(word 1,$(subst :, ,$(1)))
TEST_FILES_IMAGES := $(foreach t,$(TEST_FILES),$(B)/$(call test_files_var,$(t)).elf)
define TEST_FILES_RULES
$(if $(word 3,$(subst :, ,$(1))),,$(error $(word 1,$(subst :, ,$(1)))/test.conf: `files` is for a variant, which names its test with `image`))
$(call CPIO,$(B)/$(word 1,$(subst :, ,$(1))).cpio,$(patsubst %/,%,$(word 2,$(subst :, ,$(1)))))
$(call FILES_OBJ,$(B)/$(word 1,$(subst :, ,$(1))))
$(call $(IMAGE_RULE),$(patsubst %/,%,$(word 3,$(subst :, ,$(1)))),$(word 1,$(subst :, ,$(1))),$(B)/$(word 1,$(subst :, ,$(1))).files.o)
endef
$(foreach t,$(TEST_FILES),$(eval $(call TEST_FILES_RULES,$(t))))
images test-images: $(TEST_FILES_IMAGES)
