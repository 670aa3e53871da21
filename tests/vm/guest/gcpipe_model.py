#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""gcpipe_model.py - runs INSIDE the test guest for kmod-gcpipe.sh.

A set of files whose every 4 KiB block holds a pattern derived from
(file, generation, block), and a model of what each file must hold:

  mutate DIR STATE OPS SEED   OPS random operations on DIR/f0..f15:
                              overwrite a run of blocks (a new generation),
                              truncate, punch a hole, delete and recreate,
                              fsync; every few operations drop the caches
                              and check a file with read() and one with
                              mmap against the model.  The model goes to
                              STATE (JSON) after every operation.
  verify DIR STATE            every file against the model
  shutdown PATH HOW           GAZE_IOC_SHUTDOWN (the xfs/ext4 number)

Exit 0 when everything matched, 1 with a message on the first mismatch.
"""
import ctypes
import fcntl
import json
import mmap
import os
import random
import struct
import sys

BS = 4096
NFILES = 16
MAXBLK = 256                    # files up to 1 MiB
FALLOC_FL_KEEP_SIZE = 1
FALLOC_FL_PUNCH_HOLE = 2
GAZE_IOC_SHUTDOWN = (2 << 30) | (4 << 16) | (ord('X') << 8) | 125

libc = ctypes.CDLL(None, use_errno=True)
libc.fallocate.argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_longlong,
                           ctypes.c_longlong]


def block(f, gen, b):
    head = struct.pack('<IIII', 0x67637069, f, gen, b)
    return (head * (BS // len(head)))[:BS]


ZERO = bytes(BS)


def expect(model, f):
    """(size, bytes) file f must hold"""
    m = model[str(f)]
    if m is None:
        return None
    size, gens = m['size'], m['gens']
    out = bytearray()
    nblk = (size + BS - 1) // BS
    for b in range(nblk):
        g = gens[b] if b < len(gens) else 0
        out += block(f, g, b) if g else ZERO
    return bytes(out[:size])


def die(msg):
    print('gcpipe_model: ' + msg, file=sys.stderr)
    sys.exit(1)


def check(d, model, f, how):
    want = expect(model, f)
    path = os.path.join(d, 'f%d' % f)
    if want is None:
        if os.path.exists(path):
            die('%s: f%d exists but was deleted' % (how, f))
        return
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError as e:
        die('%s: f%d: %s' % (how, f, e))
    try:
        if how == 'mmap' and want:
            mm = mmap.mmap(fd, len(want), prot=mmap.PROT_READ)
            got = mm[:]
            mm.close()
        else:
            got = b''
            while True:
                c = os.read(fd, 1 << 20)
                if not c:
                    break
                got += c
    finally:
        os.close(fd)
    if got != want:
        if len(got) != len(want):
            die('%s: f%d: size %d, expected %d' %
                (how, f, len(got), len(want)))
        for b in range(0, len(want), BS):
            if got[b:b + BS] != want[b:b + BS]:
                h = struct.unpack('<IIII', (got[b:b + 16] + bytes(16))[:16])
                die('%s: f%d block %d differs (holds magic/file/gen/blk '
                    '%x/%d/%d/%d)' % (how, f, b // BS, *h))


def save(state, model):
    tmp = state + '.tmp'
    with open(tmp, 'w') as fp:
        json.dump(model, fp)
    os.replace(tmp, state)


def drop_caches():
    try:
        with open('/proc/sys/vm/drop_caches', 'w') as fp:
            fp.write('3\n')
    except OSError:
        pass


def mutate(d, state, ops, seed):
    rnd = random.Random(seed)
    model = {}
    for f in range(NFILES):
        gens = [1] * MAXBLK
        with open(os.path.join(d, 'f%d' % f), 'wb') as fp:
            for b in range(MAXBLK):
                fp.write(block(f, 1, b))
        model[str(f)] = {'size': MAXBLK * BS, 'gens': gens, 'gen': 1}
    os.sync()
    save(state, model)
    for op in range(ops):
        f = rnd.randrange(NFILES)
        path = os.path.join(d, 'f%d' % f)
        m = model[str(f)]
        r = rnd.random()
        if m is None:
            open(path, 'wb').close()
            m = model[str(f)] = {'size': 0, 'gens': [], 'gen': 1}
        if r < 0.55:                        # overwrite / extend
            m['gen'] += 1
            g = m['gen']
            start = rnd.randrange(MAXBLK)
            n = min(rnd.randint(1, 64), MAXBLK - start)
            fd = os.open(path, os.O_WRONLY)
            os.pwrite(fd, b''.join(block(f, g, b)
                                   for b in range(start, start + n)),
                      start * BS)
            if rnd.random() < 0.2:
                os.fsync(fd)
            os.close(fd)
            gens = m['gens']
            gens += [0] * (start + n - len(gens))
            for b in range(start, start + n):
                gens[b] = g
            m['size'] = max(m['size'], (start + n) * BS)
        elif r < 0.70:                      # truncate (down, or up)
            nb = rnd.randrange(MAXBLK + 1)
            os.truncate(path, nb * BS)
            gens = m['gens'][:nb]
            gens += [0] * (nb - len(gens))
            m['gens'] = gens
            m['size'] = nb * BS
        elif r < 0.85:                      # punch a hole
            start = rnd.randrange(MAXBLK)
            n = min(rnd.randint(1, 48), MAXBLK - start)
            fd = os.open(path, os.O_WRONLY)
            ret = libc.fallocate(fd, FALLOC_FL_PUNCH_HOLE |
                                 FALLOC_FL_KEEP_SIZE, start * BS, n * BS)
            err = ctypes.get_errno()
            os.close(fd)
            if ret:
                die('punch f%d: %s' % (f, os.strerror(err)))
            gens = m['gens']
            for b in range(start, min(start + n, len(gens))):
                gens[b] = 0
        elif r < 0.93:                      # delete (recreated later)
            os.unlink(path)
            model[str(f)] = None
        else:                               # fsync the file
            fd = os.open(path, os.O_RDONLY)
            os.fsync(fd)
            os.close(fd)
        save(state, model)
        if op % 8 == 7:
            drop_caches()
            check(d, model, rnd.randrange(NFILES), 'read')
            check(d, model, rnd.randrange(NFILES), 'mmap')
    for f in range(NFILES):
        check(d, model, f, 'read')


def verify(d, state):
    with open(state) as fp:
        model = json.load(fp)
    for f in range(NFILES):
        check(d, model, f, 'read')
        check(d, model, f, 'mmap')


def shutdown(path, how):
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.ioctl(fd, GAZE_IOC_SHUTDOWN, struct.pack('<I', how))
    finally:
        os.close(fd)


def main():
    a = sys.argv[1:]
    if len(a) == 5 and a[0] == 'mutate':
        mutate(a[1], a[2], int(a[3]), int(a[4]))
    elif len(a) == 3 and a[0] == 'verify':
        verify(a[1], a[2])
    elif len(a) == 3 and a[0] == 'shutdown':
        shutdown(a[1], int(a[2]))
    else:
        die('usage: mutate DIR STATE OPS SEED | verify DIR STATE | '
            'shutdown PATH HOW')


if __name__ == '__main__':
    main()
