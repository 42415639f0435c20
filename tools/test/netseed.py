#!/usr/bin/env python3
"""netseed.py DIR - writes the seed corpus of the network fuzz target
(tests/fuzz/netrx.c): frames to the guest at 10.0.2.15 (its MAC
52:54:00:12:34:56) from 10.0.2.2, each a 16-bit little-endian length and
the frame, with every checksum right.  Layouts: RFC 826 (ARP), 791 (IPv4),
792 (ICMP), 768 (UDP), 9293 (TCP)."""
import os
import struct
import sys

GUEST_MAC = bytes.fromhex('525400123456')
PEER_MAC = bytes.fromhex('52550a000202')
GUEST_IP = bytes([10, 0, 2, 15])
PEER_IP = bytes([10, 0, 2, 2])


def csum(b):
    if len(b) % 2:
        b += b'\0'
    s = sum(struct.unpack('!%dH' % (len(b) // 2), b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return ~s & 0xFFFF


def eth(ethertype, payload, dst=GUEST_MAC):
    return dst + PEER_MAC + struct.pack('!H', ethertype) + payload


def ipv4(proto, l4, ident=1, flags_frag=0x4000):
    hdr = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(l4), ident,
                      flags_frag, 64, proto, 0, PEER_IP, GUEST_IP)
    hdr = hdr[:10] + struct.pack('!H', csum(hdr)) + hdr[12:]
    return eth(0x0800, hdr + l4)


def l4sum(proto, l4):
    pseudo = PEER_IP + GUEST_IP + struct.pack('!BBH', 0, proto, len(l4))
    return csum(pseudo + l4)


def udp(dport, data):
    u = struct.pack('!HHHH', 40000, dport, 8 + len(data), 0) + data
    return ipv4(17, u[:6] + struct.pack('!H', l4sum(17, u)) + u[8:])


def tcp(dport, seq, ack, flags, data=b'', opts=b''):
    off = (20 + len(opts)) // 4
    t = struct.pack('!HHIIBBHHH', 40001, dport, seq, ack, off << 4, flags,
                    8192, 0, 0) + opts + data
    return ipv4(6, t[:16] + struct.pack('!H', l4sum(6, t)) + t[18:])


def icmp_echo(data):
    i = struct.pack('!BBHHH', 8, 0, 0, 7, 1) + data
    return ipv4(1, i[:2] + struct.pack('!H', csum(i)) + i[4:])


def arp_request():
    a = struct.pack('!HHBBH6s4s6s4s', 1, 0x0800, 6, 4, 1, PEER_MAC, PEER_IP,
                    bytes(6), GUEST_IP)
    return eth(0x0806, a, dst=b'\xff' * 6)


def frames(*fs):
    return b''.join(struct.pack('<H', len(f)) + f for f in fs)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    mss = b'\x02\x04\x05\xb4'
    seeds = {
        'arp': frames(arp_request()),
        'ping': frames(arp_request(), icmp_echo(b'spindle' * 8)),
        'udp-echo': frames(udp(7000, b'hello'), udp(7001, b'closed')),
        'tcp-syn-data': frames(tcp(8001, 1000, 0, 0x02, opts=mss),
                               tcp(8001, 1001, 1, 0x18, b'GET / HTTP/1.0\r\n'),
                               tcp(8001, 1017, 1, 0x11)),
        'tcp-rst': frames(tcp(8002, 5, 0, 0x02), tcp(8001, 9, 0, 0x04)),
        'ip-fragments': frames(
            ipv4(17, struct.pack('!HHHH', 40000, 7000, 24, 0) + b'A' * 8,
                 ident=9, flags_frag=0x2000),
            ipv4(17, b'B' * 8, ident=9, flags_frag=2)),
    }
    for name, data in seeds.items():
        with open(os.path.join(out, name), 'wb') as f:
            f.write(data)


main()
