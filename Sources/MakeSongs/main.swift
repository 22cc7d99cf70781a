print("songs")
