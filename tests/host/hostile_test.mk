# tests/host/hostile_test.sh runs the hostile peer, tools/hostile/, against
# apps/httpd (whose image make test builds: pprofhttp_test.mk).
HOSTILE_SRCS := $(addprefix tools/hostile/,hostile.c link.c tcp.c floods.c pkt.c)
$(HB)/hostile: $(HOSTILE_SRCS) tools/hostile/hostile.h tools/hostile/pkt.h net/lwip/netguard.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o $@ $(HOSTILE_SRCS)

$(HB)/hostile_test: $(HB)/hostile
