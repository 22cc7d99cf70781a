// The library a program imports: `import Pianola` brings the MIDI file model, the tempo map
// and the sequence model. Later layers (engine, ALSA output) join this façade.
@_exported import MIDI
@_exported import Sequencing
