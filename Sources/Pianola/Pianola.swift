// The library a program imports: `import Pianola` brings the MIDI file model and tempo map,
// the sequence model and player, the audio graph with its sampler and mixer, the
// synthesizer, audio file writing, and the offline renderer. Later layers (ALSA output,
// sequencer ports, file players) join this façade.
@_exported import AudioFile
@_exported import Engine
@_exported import FluidSynth
@_exported import MIDI
@_exported import Sequencing
