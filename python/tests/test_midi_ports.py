"""MIDI ports from Python where this machine has no sequencer (the ALSA VM plays to Midi
Through: Tests/alsa-vm/midi_through.py): the one line that says so, and the mistakes found
before any port is looked for."""
import os
from pathlib import Path

import pytest

import pianola

ROOT = Path(__file__).resolve().parents[2]
SONG = str(ROOT / "songs" / "ode-to-joy.mid")
HAS_SEQUENCER = os.path.exists("/dev/snd/seq")


def test_listing_ports_without_a_sequencer_says_why():
    if HAS_SEQUENCER:
        assert all(isinstance(port, pianola.MidiPort) for port in pianola.midi_ports())
        return
    with pytest.raises(pianola.DeviceError, match=r"^no ALSA sequencer: /dev/snd/seq is missing \(load it: modprobe snd-seq\)$"):
        pianola.midi_ports()


def test_mistakes_in_the_ports_options_are_found_first():
    with pytest.raises(pianola.ArgumentError, match=r"^routes\[0\] ch99=14:0: 'ch99' is not a channel or range of them within 1-16$"):
        pianola.play_file(SONG, routes=["ch99=14:0"])
    with pytest.raises(ValueError, match=r"^timecode_rate must be 24, 25, 29.97 \(drop-frame\) or 30, not 29$"):
        pianola.play_file(SONG, timecode=["14:0"], timecode_rate=29)
    with pytest.raises(TypeError, match="^clock entries must be str, not int$"):
        pianola.play_file(SONG, clock=[14])
    if not HAS_SEQUENCER:
        with pytest.raises(pianola.DeviceError, match="^no ALSA sequencer"):
            pianola.play_file(SONG, port="Midi Through", end="2:1")
