"""Python sends a song to Midi Through, as a script drives MIDI gear through pianola: lists the
ports, checks a port that is not there, then plays the song's first two bars to "Midi
Through" alone. Run in the ALSA VM with aseqdump listening on 14:0 (in-vm-midi.sh checks
what arrived).

    python3 midi_through.py FONT.sf2 SONG.mid [SYNC_PORT]
"""
import sys

import pianola

font, song = sys.argv[1], sys.argv[2]
ports = pianola.midi_ports()
through = [p for p in ports if p.address == "14:0"]
assert through and through[0].client == "Midi Through" and through[0].receives and through[0].kernel, ports
print("ok: midi_ports() lists 14:0 Midi Through, a kernel port that takes events")
try:
    pianola.play_file(song, font, port="no such port")
    raise SystemExit("FAIL: a port that is not there played")
except pianola.DeviceError as error:
    assert "MIDI port 'no such port': no such port to send to; ports: 14:0 Midi Through" in str(error), error
print("ok: a port that is not there is a DeviceError listing the ports")
pianola.play_file(song, font, port="Midi Through", end="3:1")
print("ok: the song's first two bars played to Midi Through")
if len(sys.argv) > 3:   # then with MIDI clock and timecode to the second port, where another aseqdump listens
    pianola.play_file(song, font, port="Midi Through", clock=[sys.argv[3]], timecode=[sys.argv[3]], timecode_rate=25, end="3:1")
    print(f"ok: played again with clock and timecode to {sys.argv[3]}")
