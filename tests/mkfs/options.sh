#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Every mkfs.gaze option has its effect in the output and in the image.
. "${GAZE_SRCDIR:-$(dirname "$0")/../..}/tests/mkfs/lib.sh"

IMG=$T/img
U=0f8fad5b-d9cb-469f-a165-70867728950e

# --help, --version
mkfs --help
expect_rc 0 --help
expect_out '^Usage: mkfs.gaze \[options\] DEVICE|IMAGE'
for o in --force --dry-run --label --uuid --zone-size --overprovision \
	 --gc-pool --dirty-limit --features --max-open --size --root-dir \
	 --quiet --verbose --version --help; do
	expect_out "$o"
done
mkfs -h
expect_rc 0 -h
pass "--help lists every option"
mkfs -V
expect_rc 0 -V
expect_out '^mkfs.gaze (gaze) 0\.1\.0$'
mkfs --version
expect_rc 0 --version
pass "--version"

# defaults
mkimg "$IMG" 256M
mkfs "$IMG"
expect_rc 0 default
is_gaze "$IMG"
for w in 'Device:' 'emulated zones' 'Size:' '256.00 MiB' 'Zones:' \
	 'Zone limits:' 'Checkpoint zones:' 'Metadata zones:' 'Data zones:' \
	 'GC reserve zones:' 'Overprovision:' 'Usable capacity:' \
	 'GC page pool:' 'Dirty limit: *20% of RAM' 'Features:' 'Label:' 'UUID:'; do
	expect_out "$w"
done
expect_sb "$IMG" dirty_limit_pct 20
expect_sb "$IMG" mkfs_version gaze-0.1.0
expect_sb "$IMG" zone_model 2
expect_sb "$IMG" label ""
expect_sb "$IMG" features "lost_found,lazy_summary,prealloc,inline_data,fsync_namespace"
expect_sb "$IMG" total_blocks 65536
expect_out "UUID: *$(sb "$IMG" uuid)"
[ -n "$(sb "$IMG" uuid)" ] || fail "no uuid"
[ "$(sb "$IMG" mkfs_time)" -gt 1600000000 ] || fail "mkfs_time not set"
pass "defaults: summary and superblock"

# two runs give different random uuids
u1=$(sb "$IMG" uuid)
mkfs -f "$IMG"
expect_rc 0 "second format"
[ "$u1" != "$(sb "$IMG" uuid)" ] || fail "uuid not random"
pass "uuid random by default"

# -L
mkfs -f -L my-label "$IMG"
expect_rc 0 -L
expect_out 'Label: *my-label'
expect_sb "$IMG" label my-label
L63=$(printf '%063d' 0)
mkfs -f --label "$L63" "$IMG"
expect_rc 0 "-L 63 bytes"
expect_sb "$IMG" label "$L63"
pass "-L LABEL"
mkfs -f -L "${L63}x" "$IMG"
expect_usage "-L 64 bytes"

# -U
mkfs -f -U "$U" "$IMG"
expect_rc 0 -U
expect_out "UUID: *$U"
expect_sb "$IMG" uuid "$U"
mkfs -f --uuid random "$IMG"
expect_rc 0 "-U random"
[ "$(sb "$IMG" uuid)" != "$U" ] || fail "-U random kept the old uuid"
pass "-U UUID|random"
mkfs -f -U not-a-uuid "$IMG"
expect_usage "-U garbage"

# -z
mkfs -f -z 4M "$IMG"
expect_rc 0 -z
expect_out 'Zones: *64 x 4.00 MiB'
expect_sb "$IMG" zone_blocks 1024
expect_sb "$IMG" nr_zones 64
mkfs -f --zone-size 1MiB "$IMG"
expect_rc 0 "-z 1MiB"
expect_sb "$IMG" zone_blocks 256
pass "-z SIZE"
mkfs -f -z 512K "$IMG"
expect_usage "-z below 1 MiB"
mkfs -f -z 1026K "$IMG"
expect_usage "-z not a multiple of 4 KiB"
mkfs -f -z lots "$IMG"
expect_usage "-z garbage"

# -o
mkfs -f -o 10 "$IMG"
expect_rc 0 -o
expect_out 'Overprovision: *10%'
expect_sb "$IMG" ovp_percent 10
mkfs -f --overprovision 50 "$IMG"
expect_rc 0 "-o 50"
expect_sb "$IMG" ovp_percent 50
pass "-o PERCENT"
for v in 0 51 abc 10%; do
	mkfs -f -o "$v" "$IMG"
	expect_usage "-o $v"
done

# --gc-pool
mkfs -f --gc-pool 8M "$IMG"
expect_rc 0 --gc-pool
expect_out 'GC page pool: *8.00 MiB'
expect_sb "$IMG" gc_pool_blocks 2048
mkfs -f --gc-pool 4G "$IMG"
expect_rc 0 "--gc-pool 4G"
expect_sb "$IMG" gc_pool_blocks 1048576
pass "--gc-pool SIZE"
for v in 512K 5G 1M+1 1025K; do
	mkfs -f --gc-pool "$v" "$IMG"
	expect_usage "--gc-pool $v"
done

# --dirty-limit
mkfs -f --dirty-limit 35 "$IMG"
expect_rc 0 --dirty-limit
expect_out 'Dirty limit: *35% of RAM'
expect_sb "$IMG" dirty_limit_pct 35
pass "--dirty-limit PERCENT"
for v in 0 91 x; do
	mkfs -f --dirty-limit "$v" "$IMG"
	expect_usage "--dirty-limit $v"
done

# -O
mkfs -f -O ^lost_found "$IMG"
expect_rc 0 -O
expect_out 'Features: *lazy_summary,prealloc,inline_data,fsync_namespace$'
expect_sb "$IMG" features "lazy_summary,prealloc,inline_data,fsync_namespace"
mkfs -f -O ^prealloc "$IMG"
expect_rc 0 "-O ^prealloc"
expect_sb "$IMG" features "lost_found,lazy_summary,inline_data,fsync_namespace"
mkfs -f -O ^lazy_summary "$IMG"
expect_rc 0 "-O ^lazy_summary"
expect_sb "$IMG" features "lost_found,prealloc,inline_data,fsync_namespace"
# compression: -O compression alone means lz4, 64 KiB clusters
mkfs -f -O compression "$IMG"
expect_rc 0 "-O compression"
expect_sb "$IMG" features "lost_found,lazy_summary,prealloc,inline_data,compression,fsync_namespace"
expect_sb "$IMG" compress_algo 1
expect_sb "$IMG" compress_log_cluster 4
# meta_uuid: set by gazectl uuid on an existing filesystem only
mkfs -f -O meta_uuid "$IMG"
expect_usage "-O meta_uuid (gazectl uuid's)"
expect_err "set by gazectl"
mkfs -f --features ^inline_data,^lost_found,^prealloc,^lazy_summary,^fsync_namespace "$IMG"
expect_rc 0 "-O clear all"
expect_sb "$IMG" features "none"
pass "-O FEATURES"
mkfs -f -O lost_found,bogus "$IMG"
expect_usage "-O unknown feature"
expect_err "bogus"

# --compression, --cluster-size
mkfs -f --compression zstd:7 --cluster-size 16K "$IMG"
expect_rc 0 "--compression zstd:7"
expect_sb "$IMG" features "lost_found,lazy_summary,prealloc,inline_data,compression,fsync_namespace"
expect_sb "$IMG" compress_algo 2
expect_sb "$IMG" compress_level 7
expect_sb "$IMG" compress_log_cluster 2
mkfs -f --compression gzip-9 --cluster-size 1M "$IMG"
expect_rc 0 "--compression gzip-9"
expect_sb "$IMG" compress_algo 3
expect_sb "$IMG" compress_level 9
expect_sb "$IMG" compress_log_cluster 8
mkfs -f --compression none "$IMG"
expect_rc 0 "--compression none"
expect_sb "$IMG" features "lost_found,lazy_summary,prealloc,inline_data,fsync_namespace"
pass "--compression ALG[:LEVEL], --cluster-size SIZE"
for v in zstd:20 lz4:1 gzip:0 xz bogus; do
	mkfs -f --compression "$v" "$IMG"
	expect_usage "--compression $v"
done
for v in 8K 48K 2M; do
	mkfs -f --compression lz4 --cluster-size "$v" "$IMG"
	expect_usage "--cluster-size $v"
done
mkfs -f --cluster-size 64K "$IMG"
expect_usage "--cluster-size without compression"

# --max-open
mkfs -f --max-open 6 "$IMG"
expect_rc 0 --max-open
expect_out 'Zone limits: *6 open'
expect_out '4 logs'
expect_sb "$IMG" max_open 6
expect_sb "$IMG" nr_logs 4
mkfs -f --max-open 4 "$IMG"
expect_rc 0 "--max-open 4"
expect_sb "$IMG" nr_logs 2
pass "--max-open N"
mkfs -f --max-open 0 "$IMG"
expect_usage "--max-open 0"

# -s
NEW=$T/new.img
mkfs -s 128M "$NEW"
expect_rc 0 "-s new image"
[ "$(stat -c %s "$NEW")" -eq 134217728 ] || fail "-s: wrong size"
[ "$(stat -c %b "$NEW")" -lt 65536 ] || fail "-s: image is not sparse"
is_gaze "$NEW"
expect_sb "$NEW" total_blocks 32768
mkfs -f -s 160M "$NEW"
expect_rc 0 "-s grow"
[ "$(stat -c %s "$NEW")" -eq 167772160 ] || fail "-s: not grown"
expect_sb "$NEW" total_blocks 40960
mkfs -f -s 128M "$NEW"
expect_rc 0 "-s shrink with -f"
[ "$(stat -c %s "$NEW")" -eq 134217728 ] || fail "-s: not shrunk"
is_gaze "$NEW"
pass "-s SIZE creates, grows and (with -f) shrinks"
mkfs -s 0 "$NEW"
expect_usage "-s 0"

# -q, -v
mkfs -f -q "$IMG"
expect_rc 0 -q
[ -s "$T/out" ] && fail "-q printed something"
[ -s "$T/err" ] && fail "-q printed to stderr"
is_gaze "$IMG"
pass "-q"
mkfs -f -v "$IMG"
expect_rc 0 -v
expect_out 'Metadata tables:'
expect_out 'inode map'
expect_out 'block summaries'
pass "-v prints table sizes"
mkfs -f -q -v "$IMG"
expect_usage "-q with -v"

# operands and unknown options
mkfs
expect_usage "no operand"
mkfs "$IMG" "$IMG"
expect_usage "extra operand"
mkfs --bogus "$IMG"
expect_usage "unknown long option"
mkfs -Y "$IMG"
expect_usage "unknown short option"
mkfs "$IMG" -L
expect_usage "missing argument"

finish
