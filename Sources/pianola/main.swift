import Glibc
import PianolaCommands

// A device or file that goes away mid-write (a pipe's reader quits, the ALSA `file` plugin's
// FIFO closes) must fail the write with EPIPE and end in one line, not kill the process
// silently with SIGPIPE.
signal(SIGPIPE, SIG_IGN)
PianolaCommand.mainWithShortcuts()
