// The library a program imports: `import Pianola` brings the MIDI file model and tempo map,
// the sequence model and player, the audio graph with its sampler and mixer, both
// synthesizers (libfluidsynth's and Pianola's own, with the SoundFont model it reads), audio
// files (writing, streaming players, sound effects), the offline renderer and the game API
// (`Soundtrack`).
@_exported import AudioFile
@_exported import DSP
@_exported import Faults
@_exported import Engine
@_exported import FluidSynth
@_exported import LV2
@_exported import MIDI
@_exported import Playback
@_exported import Sequencing
@_exported import SoundFontModel
@_exported import SoundFontSynth
@_exported import Streaming
@_exported import Synthesis
