#!/bin/bash
# PID 1 of the agent's sandbox: run by sandbox.py under
#   unshare --mount --pid --fork --mount-proc --kill-child
# so its mounts are its own and every process in it dies with it.  It
# builds a /dev holding only the test's loop disks, covers the SysRq
# trigger and the kernel command line, proves the confinement (the same
# check the loop hardware manager makes), and only then starts the agent.
set -euo pipefail
run_dir=${IRONIC_STEPS_AGENT_RUN_DIR:?}

mount -t tmpfs -o mode=755,nosuid,size=1m sandbox-dev /dev
for spec in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r name major minor <<< "$spec"
    mknod -m 666 "/dev/$name" c "$major" "$minor"
done
# POSIX semaphores (IPA's erase runs a multiprocessing pool) live here.
mkdir /dev/shm
mount -t tmpfs -o mode=1777,nosuid,nodev,size=16m sandbox-shm /dev/shm
ln -s /proc/self/fd /dev/fd
ln -s /proc/self/fd/0 /dev/stdin
ln -s /proc/self/fd/1 /dev/stdout
ln -s /proc/self/fd/2 /dev/stderr
IFS=, read -r -a disks <<< "${IRONIC_STEPS_AGENT_DISKS:?}"
for entry in "${disks[@]}"; do
    device=${entry%%=*}
    numbers=$(cat "/sys/block/$(basename "$device")/dev")
    mknod -m 660 "$device" b "${numbers%%:*}" "${numbers##*:}"
done
if [ -e /proc/sysrq-trigger ]; then
    mount --bind /dev/null /proc/sysrq-trigger
fi
mount --bind "$run_dir/cmdline" /proc/cmdline

"${IRONIC_STEPS_AGENT_PYTHON:?}" -m ironic_steps_confinement \
    > "$run_dir/confinement.json" || exit 97

"$(dirname "${IRONIC_STEPS_AGENT_PYTHON}")/ironic-python-agent" \
    --config-file "$run_dir/agent.conf" &
wait $!
