"""Building configs on a Ray cluster: every (config, split, shard) of a prepared build is a Ray task.

The driver resolves the configs' sources once (:func:`api.prefetch`, one pass per shared archive, into
the source cache under ``cache_dir``), learns each config's splits and shards from the builder's own
split generators, and submits one task per shard. A task rebuilds the builder on its worker with the
same options, resolves the same sources there — from the shared member cache when ``cache_dir`` is on
a filesystem every node sees, else by the worker's own download into its own ``cache_dir`` — and
returns the shard's finished rows (plan, instances, fit, token counts all run on the worker).

The driver then runs each builder's ordinary ``download_and_prepare``; its ``_generate_examples``
takes each shard's rows from that shard's task, in shard order (:attr:`SuiteBuilder.rows_from`). So
``datasets`` writes exactly the Arrow files of a one-process build, and everything after it (the
export's Parquet and card, ``check``, ``load_dataset``) reads them as always: the same bytes.

Ray tasks rather than Ray Data: the unit is the builder's shard, whose rows must come back in plan
order into ``datasets``' own writer; Ray Data would re-block and reorder them and write Parquet its
own way, never the bytes ``push_to_hub`` and the single-process export write.
"""

from __future__ import annotations

import socket
import uuid
from collections.abc import Callable, Sequence

from . import api, datasets_hooks
from .errors import MissingDependencyError, OptionError, SuiteError
from .options import BuildOptions

#: the engines ``export`` and ``prepare`` know
ENGINES = ("local", "ray")

#: per worker process: the builders its tasks made, by run and config (a split's plan is then made
#: once per worker process, as in a local build)
_WORKER_BUILDERS: dict[tuple[str, str], tuple[object, dict[str, dict]]] = {}


def check_engine(engine: str, address: str | None, num_proc: int | None) -> None:
    """Refuse an engine option that cannot apply, before anything is built."""
    if engine not in ENGINES:
        raise OptionError(f"engine (--engine) must be one of {', '.join(ENGINES)}, got {engine!r}")
    if engine != "ray" and address is not None:
        raise OptionError("address (--address) names a Ray cluster; it needs engine='ray' (--engine ray)")
    if engine == "ray" and api.check_num_proc(num_proc) is not None:
        raise OptionError(
            "num_proc (--num-proc) splits a build over one machine's processes; with engine='ray' the "
            "cluster's CPUs run the shards, so leave num_proc out"
        )


def _ray():
    try:
        import ray
    except ImportError:
        raise MissingDependencyError(
            'engine="ray" needs Ray: pip install "longbench-suite[distributed]"'
        ) from None
    return ray


def prepare(names: Sequence[str], options: BuildOptions, *, address: str | None = None) -> None:
    """Build the configs ``names`` (qualified, ``"helmet/nq_8k"``) with the build ``options``
    into the ``datasets`` cache, each shard of each split a task on the Ray cluster at ``address``.

    Without ``address`` the cluster this process is connected to is used, else ``ray.init``'s own choice
    (``RAY_ADDRESS``, a cluster ``ray start`` runs on this machine, else a new local one), left again
    when done (a local one it started is stopped). A config already in the cache is not rebuilt.
    """
    ray = _ray()
    started = _connect(ray, address)
    try:
        builders = [api.get_builder(name, options=options) for name in names]
        api.prefetch(builders)
        run = uuid.uuid4().hex
        build_shard = ray.remote(_build_shard)
        submitted = []
        for name, builder in zip(names, builders, strict=True):
            if datasets_hooks.is_prepared(builder):
                continue
            tasks = {}
            for generator in datasets_hooks.split_generators(builder, api.download_manager(builder)):
                kwargs = generator.gen_kwargs
                for shard in kwargs["shards"]:
                    tasks[kwargs["split"], shard] = build_shard.remote(
                        run, name, options, kwargs["split"], shard, kwargs["num_shards"]
                    )
            submitted.append((builder, tasks))
        for builder, tasks in submitted:
            builder.rows_from = _take(ray, tasks)
            try:
                api.prepare_one(builder)
            finally:
                builder.rows_from = None
    finally:
        if started:
            ray.shutdown()


def _connect(ray, address: str | None) -> bool:
    """Connect to the cluster; ``True`` when this call started it (and so must stop it)."""
    if ray.is_initialized():
        if address is not None:
            raise OptionError(
                f"this process is already connected to a Ray cluster; address={address!r} cannot change it"
            )
        return False
    _reachable(address)
    try:
        ray.init(address=address, include_dashboard=False, log_to_driver=False)
    except ConnectionError as exc:
        raise OptionError(f"no Ray cluster at address {address!r} (--address): {exc}") from None
    return True


def _reachable(address: str | None, timeout: float = 10.0) -> None:
    """Refuse a ``host:port`` address nothing listens at (``ray.init`` would retry it for minutes)."""
    if not address or address == "auto" or address.startswith(("ray://", "local")):
        return
    host, _, port = address.rpartition(":")
    if not host or not port.isdigit():
        return
    try:
        socket.create_connection((host, int(port)), timeout=timeout).close()
    except OSError as exc:
        raise OptionError(
            f"no Ray cluster at address {address!r} (--address): {exc.strerror or exc}"
        ) from None


def _take(ray, tasks: dict) -> Callable[[str, int], list[dict]]:
    """The rows of ``(split, shard)`` from its task, each taken once (then freed from the object store)."""

    def rows(split: str, shard: int) -> list[dict]:
        ref = tasks.pop((split, shard))
        try:
            return ray.get(ref)
        except ray.exceptions.RayError as exc:
            for left in tasks.values():  # the build stops here: free the cluster of the rest
                ray.cancel(left, force=True)
            cause = getattr(exc, "cause", None)
            if isinstance(cause, SuiteError):
                raise cause.with_traceback(None) from None
            what = f"{type(cause).__name__}: {cause}" if cause is not None else f"{type(exc).__name__}"
            raise SuiteError(f"a Ray task building shard {shard} of {split!r} failed: {what}") from None

    return rows


def _build_shard(
    run: str, name: str, options: BuildOptions, split: str, shard: int, num_shards: int
) -> list[dict]:
    """On a worker: the finished rows of shard ``shard`` of ``split`` of config ``name``."""
    key = (run, name)
    if key not in _WORKER_BUILDERS:
        _WORKER_BUILDERS.clear()  # one config's builder at a time: plans of past configs are not kept
        builder = api.get_builder(name, options=options)
        with api._unwrapped_errors(builder.cache_root):
            generators = datasets_hooks.split_generators(builder, api.download_manager(builder))
        _WORKER_BUILDERS[key] = builder, {g.gen_kwargs["split"]: g.gen_kwargs for g in generators}
    builder, kwargs = _WORKER_BUILDERS[key]
    if split not in kwargs or kwargs[split]["num_shards"] != num_shards:
        raise SuiteError(
            f"{name}: a Ray worker sees other sources than the driver ({split!r} split, {num_shards} "
            "shards on the driver); give every node the same mirror, data_dir and library version"
        )
    with api._unwrapped_errors(builder.cache_root):
        return list(datasets_hooks.shard_rows(builder, {**kwargs[split], "shards": [shard]}))
