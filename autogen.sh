#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Generates configure and Makefile.in; then build out of tree:
#   mkdir build && cd build && ../configure && make
set -e
cd "$(dirname "$0")"
mkdir -p m4
autoreconf -fi
