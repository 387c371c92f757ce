#!/usr/bin/python3
"""upsample in other processes: DataLoader workers (fork) after the parent ran the engine with
several threads, a plain fork() child, and torch.distributed processes (gloo, spawned).

GNU OpenMP's thread pool does not survive fork(): a parallel region in the child of a process
that used one waits forever. Each scenario therefore runs in a subprocess with a timeout, so
that a hang fails the test instead of blocking the suite.

Run directly, `test_torch_processes.py --scenario NAME` runs one scenario in this process.
"""

import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import torch_helpers as th  # noqa: E402
from torch_helpers import np, torch  # noqa: E402

import upsample  # noqa: E402

TIMEOUT_S = 150
KW = dict(scale_factor=2, mode="bilinear")


def batch(i):
    gen = torch.Generator().manual_seed(i)
    return torch.rand(1, 8, 96, 96, generator=gen)


class Images(torch.utils.data.Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        x = batch(i).requires_grad_()
        y = upsample.interpolate(x, **KW)
        y.backward(torch.ones_like(y))
        return y.detach()[0], x.grad[0], upsample.get_num_threads(), os.getpid()


def scenario_dataloader():
    torch.set_num_threads(2)
    # The parent runs the engine with 2 threads first (OpenMP parallel regions), and sets the
    # thread count explicitly: the workers must neither hang nor inherit it.
    expected = []
    for i in range(len(Images())):
        x = batch(i).requires_grad_()
        y = upsample.interpolate(x, **KW)
        y.backward(torch.ones_like(y))
        expected.append((y.detach()[0], x.grad[0]))
    upsample.set_num_threads(2)
    assert upsample.get_num_threads() == 2
    loader = torch.utils.data.DataLoader(Images(), batch_size=2, num_workers=2, timeout=60,
                                         multiprocessing_context="fork")
    pids = set()
    i = 0
    for ys, grads, threads, worker_pids in loader:
        assert threads.tolist() == [1, 1], "workers used %s threads" % threads.tolist()
        pids.update(worker_pids.tolist())
        for y, g in zip(ys, grads):
            th.assert_bits(y, expected[i][0], "worker forward %d" % i)
            th.assert_bits(g, expected[i][1], "worker gradient %d" % i)
            i += 1
    assert i == len(Images()) and len(pids) == 2 and os.getpid() not in pids, (i, pids)
    assert upsample.get_num_threads() == 2  # the parent keeps its setting
    print("dataloader ok")


def scenario_fork():
    torch.set_num_threads(2)
    x = batch(0)
    expected = upsample.interpolate(x, **KW).numpy()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        # In the child only the engine runs (torch's own multi-threaded kernels would hang
        # here): one thread, the same bits.
        status = 1
        try:
            os.close(read_end)
            threads = upsample.get_num_threads()
            y = upsample.interpolate(x, **KW).numpy()
            os.write(write_end, np.int64(threads).tobytes() + y.tobytes())
            status = 0
        finally:
            os._exit(status)
    os.close(write_end)
    data = b""
    while True:
        chunk = os.read(read_end, 1 << 20)
        if not chunk:
            break
        data += chunk
    _, status = os.waitpid(pid, 0)
    assert status == 0, "child exit status %d" % status
    threads = int(np.frombuffer(data[:8], np.int64)[0])
    got = np.frombuffer(data[8:], np.float32).reshape(expected.shape)
    assert threads == 1, threads
    assert np.array_equal(got, expected)
    print("fork ok")


def _distributed_rank(rank, world, init_file, out_dir):
    import torch.distributed as dist
    dist.init_process_group("gloo", init_method="file://" + init_file, rank=rank,
                            world_size=world)
    weight = torch.ones(1, 8, 96, 96, requires_grad=True)
    y = upsample.interpolate(batch(rank) * weight, size=(130, 70), mode="bicubic")
    y.square().mean().backward()
    dist.all_reduce(weight.grad)
    torch.save({"grad": weight.grad, "y": y.detach()}, os.path.join(out_dir, "%d.pt" % rank))
    dist.destroy_process_group()


def scenario_distributed():
    import torch.multiprocessing as mp
    world = 2
    with tempfile.TemporaryDirectory() as tmp:
        init_file = os.path.join(tmp, "init")
        mp.spawn(_distributed_rank, args=(world, init_file, tmp), nprocs=world, join=True)
        results = [torch.load(os.path.join(tmp, "%d.pt" % r)) for r in range(world)]
    total = torch.zeros(1, 8, 96, 96)
    for rank in range(world):
        w = torch.ones(1, 8, 96, 96, requires_grad=True)
        y = upsample.interpolate(batch(rank) * w, size=(130, 70), mode="bicubic")
        th.assert_bits(results[rank]["y"], y.detach(), "rank %d forward" % rank)
        y.square().mean().backward()
        total += w.grad
    for rank in range(world):
        th.assert_close(results[rank]["grad"], total, "backward", "all-reduced gradient")
    print("distributed ok")


SCENARIOS = {"dataloader": scenario_dataloader, "fork": scenario_fork,
             "distributed": scenario_distributed}


def run_scenario(name):
    r = subprocess.run([sys.executable, os.path.abspath(__file__), "--scenario", name],
                       capture_output=True, text=True, timeout=TIMEOUT_S)
    assert r.returncode == 0 and ("%s ok" % name) in r.stdout, \
        "scenario %s: exit %d\n%s\n%s" % (name, r.returncode, r.stdout, r.stderr[-3000:])


def test_dataloader_workers_after_the_parent_used_threads():
    run_scenario("dataloader")


def test_plain_fork_child():
    run_scenario("fork")


def test_torch_distributed_processes():
    run_scenario("distributed")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--scenario":
        SCENARIOS[sys.argv[2]]()
        sys.exit(0)
    sys.exit(th.run(__file__))
