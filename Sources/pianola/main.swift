import PianolaCommands

PianolaCommand.main()
