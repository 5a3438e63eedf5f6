"""Every command the published tutorials print, checked by TRL itself: parsed by ``trl sft``'s
own parsers and the first single-GPU LoRA command trained for two steps on a tiny model
(``scripts/check_trl_commands.py``, run in TRL's environment: ``make test-all`` builds it).

Heavy: about 25 s, and the environment is a separate install of PyTorch and TRL. Without it
the test skips saying so; with REQUIRE_TRL=1 (CI) it fails instead.
"""

import json
import os
import subprocess
from pathlib import Path

import pytest

from guides.models import Guide
from guides.pages import tutorial
from guides.pages.selectors import guide_for_page, published_guides
from tests.conftest import _required

ROOT = Path(__file__).resolve().parent.parent
pytestmark = pytest.mark.heavy


@pytest.fixture
def published(seeded) -> list[Guide]:
    return published_guides()


def trl_python() -> Path | None:
    """The TRL environment's Python: TRL_PYTHON, or .venv-trl's where it was built."""
    path = Path(os.environ.get("TRL_PYTHON") or ROOT / ".venv-trl" / "bin" / "python")
    return path if path.exists() else None


def test_trl_parses_every_published_command_and_trains_the_lora_one(published, tmp_path):
    python = trl_python()
    if python is None:
        message = (
            "TRL's environment is missing, so the tutorials' commands were NOT checked: "
            "`make .venv-trl/.installed` (or `make test-all`) builds it"
        )
        if _required("REQUIRE_TRL"):
            pytest.fail(message)
        pytest.skip(message)
    commands = [
        {
            "label": label,
            "argv": command.argv,
            "run": command.method == "lora" and command.num_gpus == 1,
        }
        for guide in published
        for label, command in tutorial.published_commands(guide_for_page(slug=guide.slug))
    ]
    assert len(commands) >= 2 * len(published)  # a full and a short run of each method held
    assert any(c["run"] for c in commands)
    listing = tmp_path / "commands.json"
    listing.write_text(json.dumps(commands))
    checked = subprocess.run(
        [str(python), str(ROOT / "scripts" / "check_trl_commands.py"), str(listing)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert checked.returncode == 0, checked.stdout[-2000:] + checked.stderr[-4000:]
    assert f"{len(commands)} commands parsed" in checked.stdout
    assert "trained " in checked.stdout
    # On several GPUs, full fine-tuning saves each GPU's shard; adapters their (small) full state.
    sharded = [c for c in commands if "--num_processes" in c["argv"]]
    assert any("--use_peft" in c["argv"] for c in sharded)
    assert any("--use_peft" not in c["argv"] for c in sharded)
    for command in sharded:
        argv = command["argv"]
        state = "FULL_STATE_DICT" if "--use_peft" in argv else "SHARDED_STATE_DICT"
        processes = argv[argv.index("--num_processes") + 1]
        line = f"parsed  {command['label']}: {processes} processes, fsdp2, {state}\n"
        assert line in checked.stdout
