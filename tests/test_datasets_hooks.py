"""``datasets_hooks.without_file_locks``: ``datasets.builder.FileLock`` replaced while any user is
inside, and the original back once the last one leaves, whatever order users leave in."""

from __future__ import annotations

import threading

import datasets.builder

from longbench_suite import datasets_hooks


def test_the_lock_is_replaced_inside_and_restored_after():
    original = datasets.builder.FileLock
    with datasets_hooks.without_file_locks():
        assert datasets.builder.FileLock is not original
        with datasets.builder.FileLock("/nonexistent-dir/x.lock"):  # takes no file
            pass
    assert datasets.builder.FileLock is original


def test_overlapping_users_leaving_first_in_first_out_restore_the_original():
    original = datasets.builder.FileLock
    first, second = datasets_hooks.without_file_locks(), datasets_hooks.without_file_locks()
    first.__enter__()
    second.__enter__()
    first.__exit__(None, None, None)
    assert datasets.builder.FileLock is not original  # the second user is still inside
    second.__exit__(None, None, None)
    assert datasets.builder.FileLock is original


def test_concurrent_users_restore_the_original():
    original = datasets.builder.FileLock
    start = threading.Barrier(8)
    seen = []

    def use() -> None:
        start.wait()
        for _ in range(200):
            with datasets_hooks.without_file_locks():
                seen.append(datasets.builder.FileLock is original)

    threads = [threading.Thread(target=use) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen and not any(seen)
    assert datasets.builder.FileLock is original


def test_an_error_inside_still_restores_the_original():
    original = datasets.builder.FileLock
    try:
        with datasets_hooks.without_file_locks():
            raise KeyError("inside")
    except KeyError:
        pass
    assert datasets.builder.FileLock is original
