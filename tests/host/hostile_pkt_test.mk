# The hostile peer's frame builder and parser (tools/hostile/).
hostile_pkt_test_SRCS := tools/hostile/pkt.c
