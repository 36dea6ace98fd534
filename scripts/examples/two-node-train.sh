#!/usr/bin/env bash
# Data-parallel training on two machines by hand, without a scheduler.
# Run this on both, with the same experiment file, the same master address
# and each machine's own node rank:
#
#   node0$ scripts/examples/two-node-train.sh 0 10.0.0.1:29500 configs/reuters_conv1d.yaml
#   node1$ scripts/examples/two-node-train.sh 1 10.0.0.1:29500 configs/reuters_conv1d.yaml
#
# Each machine starts one rank per entry of `devices` (here two CPU ranks),
# so the run has 2 nodes x 2 = 4 ranks: ranks 0-1 on node 0, 2-3 on node 1.
# Node 0's rank 0 serves the rendezvous store on MASTER (its address, any
# free port); the other node connects to it. Gloo picks the interface that
# the host name resolves to: export GLOO_SOCKET_IFNAME=eth1 to choose one.
#
# Node 0 writes the run directory (log.dir); to --resume, both machines must
# see it (a shared file system), as with torchrun.
set -euo pipefail
node_rank=${1:?usage: two-node-train.sh NODE_RANK MASTER_HOST:PORT EXPERIMENT.yaml [trainer run options]}
master=${2:?MASTER_HOST:PORT of node 0}
config=${3:?experiment file}
shift 3
exec build/trainer run "$config" --devices cpu,cpu --nnodes 2 --node-rank "$node_rank" --master "$master" "$@"
