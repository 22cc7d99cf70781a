public enum SongBook {}
