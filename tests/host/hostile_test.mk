# tests/host/hostile_test.sh runs the hostile peer, tools/hostile/, against
# apps/httpd (whose image make test builds: pprofhttp_test.mk).
$(HB)/hostile: tools/hostile/hostile.c tools/hostile/pkt.c tools/hostile/pkt.h
	$(call msg,HOSTCC,$@)
	$(Q)mkdir -p $(@D)
	$(Q)$(HOST_CC) -std=gnu11 -O2 -Wall -Wextra -Werror -I. -o $@ tools/hostile/hostile.c tools/hostile/pkt.c

$(HB)/hostile_test: $(HB)/hostile
