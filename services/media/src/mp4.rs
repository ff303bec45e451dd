//! A minimal MP4 (ISO BMFF) writer for one H.264 video track, laid out for
//! fast start: `ftyp`, then `moov` with every table, then `mdat`, so a player
//! can start before the whole file has arrived and seek with range requests.
//! Samples are AVC access units with 4-byte length prefixes; the sequence and
//! picture parameter sets live in the `avcC` box.

/// The media timescale: 90 kHz divides evenly by every allowed frame rate.
pub const TIMESCALE: u32 = 90_000;

/// One coded picture.
#[derive(Debug, Clone)]
pub struct Sample {
    /// NAL units, each with a 4-byte big-endian length before it.
    pub data: Vec<u8>,
    /// How long it shows, in [`TIMESCALE`] ticks.
    pub duration: u32,
    /// An IDR picture: playback can start here.
    pub sync: bool,
}

/// The track's stream description.
#[derive(Debug, Clone)]
pub struct Track {
    /// Pixels.
    pub width: u16,
    /// Pixels.
    pub height: u16,
    /// The sequence parameter set NAL unit (no start code, no length).
    pub sps: Vec<u8>,
    /// The picture parameter set NAL unit.
    pub pps: Vec<u8>,
}

/// A box: its size, its four-character type, then `body`.
fn mp4_box(kind: &[u8; 4], body: &[u8]) -> Vec<u8> {
    let size = u32::try_from(body.len() + 8).unwrap_or(u32::MAX);
    let mut out = Vec::with_capacity(body.len() + 8);
    out.extend_from_slice(&size.to_be_bytes());
    out.extend_from_slice(kind);
    out.extend_from_slice(body);
    out
}

/// A full box: a box whose body starts with a version and 24 bits of flags.
fn full_box(kind: &[u8; 4], version: u8, flags: u32, body: &[u8]) -> Vec<u8> {
    let mut b = Vec::with_capacity(body.len() + 4);
    b.push(version);
    b.extend_from_slice(&flags.to_be_bytes()[1..]);
    b.extend_from_slice(body);
    mp4_box(kind, &b)
}

/// The identity transformation matrix of `mvhd` and `tkhd`.
fn matrix() -> Vec<u8> {
    let mut m = Vec::with_capacity(36);
    for v in [0x0001_0000u32, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000] {
        m.extend_from_slice(&v.to_be_bytes());
    }
    m
}

struct Writer(Vec<u8>);

impl Writer {
    fn u8(&mut self, v: u8) -> &mut Self {
        self.0.push(v);
        self
    }
    fn u16(&mut self, v: u16) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn u32(&mut self, v: u32) -> &mut Self {
        self.0.extend_from_slice(&v.to_be_bytes());
        self
    }
    fn bytes(&mut self, v: &[u8]) -> &mut Self {
        self.0.extend_from_slice(v);
        self
    }
    fn zeros(&mut self, n: usize) -> &mut Self {
        self.0.resize(self.0.len() + n, 0);
        self
    }
}

fn len_u16(v: &[u8]) -> u16 {
    u16::try_from(v.len()).unwrap_or(u16::MAX)
}

fn len_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The `avc1` sample entry with its `avcC` configuration.
fn avc1(track: &Track) -> Vec<u8> {
    let profile = track.sps.get(1).copied().unwrap_or(66);
    let compat = track.sps.get(2).copied().unwrap_or(0);
    let level = track.sps.get(3).copied().unwrap_or(31);
    let mut c = Writer(Vec::new());
    c.u8(1)
        .u8(profile)
        .u8(compat)
        .u8(level)
        // 4-byte NAL lengths; one SPS.
        .u8(0xFF)
        .u8(0xE1)
        .u16(len_u16(&track.sps))
        .bytes(&track.sps)
        .u8(1)
        .u16(len_u16(&track.pps))
        .bytes(&track.pps);
    let avcc = mp4_box(b"avcC", &c.0);
    let mut e = Writer(Vec::new());
    e.zeros(6)
        .u16(1) // data reference index
        .zeros(16)
        .u16(track.width)
        .u16(track.height)
        .u32(0x0048_0000) // 72 dpi
        .u32(0x0048_0000)
        .u32(0)
        .u16(1) // one frame per sample
        .zeros(32) // compressor name
        .u16(0x0018) // depth: colour, no alpha
        .u16(0xFFFF)
        .bytes(&avcc);
    mp4_box(b"avc1", &e.0)
}

/// The sample tables; `data_offset` is where the first sample's bytes start
/// in the file.
fn stbl(track: &Track, samples: &[Sample], data_offset: u32) -> Vec<u8> {
    let stsd = {
        let mut w = Writer(Vec::new());
        w.u32(1).bytes(&avc1(track));
        full_box(b"stsd", 0, 0, &w.0)
    };
    // Runs of equal durations.
    let mut runs: Vec<(u32, u32)> = Vec::new();
    for s in samples {
        match runs.last_mut() {
            Some((count, delta)) if *delta == s.duration => *count += 1,
            _ => runs.push((1, s.duration)),
        }
    }
    let stts = {
        let mut w = Writer(Vec::new());
        w.u32(len_u32(runs.len()));
        for (count, delta) in &runs {
            w.u32(*count).u32(*delta);
        }
        full_box(b"stts", 0, 0, &w.0)
    };
    let stss = {
        let sync: Vec<u32> = samples
            .iter()
            .enumerate()
            .filter(|(_, s)| s.sync)
            .map(|(i, _)| len_u32(i + 1))
            .collect();
        let mut w = Writer(Vec::new());
        w.u32(len_u32(sync.len()));
        for n in sync {
            w.u32(n);
        }
        full_box(b"stss", 0, 0, &w.0)
    };
    // Every sample in one chunk.
    let stsc = {
        let mut w = Writer(Vec::new());
        w.u32(1).u32(1).u32(len_u32(samples.len())).u32(1);
        full_box(b"stsc", 0, 0, &w.0)
    };
    let stsz = {
        let mut w = Writer(Vec::new());
        w.u32(0).u32(len_u32(samples.len()));
        for s in samples {
            w.u32(len_u32(s.data.len()));
        }
        full_box(b"stsz", 0, 0, &w.0)
    };
    let stco = {
        let mut w = Writer(Vec::new());
        w.u32(1).u32(data_offset);
        full_box(b"stco", 0, 0, &w.0)
    };
    mp4_box(b"stbl", &[stsd, stts, stss, stsc, stsz, stco].concat())
}

fn moov(track: &Track, samples: &[Sample], data_offset: u32) -> Vec<u8> {
    let ticks: u64 = samples.iter().map(|s| u64::from(s.duration)).sum();
    // The movie's timescale is milliseconds; the track's is TIMESCALE.
    let movie_ms = u32::try_from(ticks * 1000 / u64::from(TIMESCALE)).unwrap_or(u32::MAX);
    let track_ticks = u32::try_from(ticks).unwrap_or(u32::MAX);
    let mvhd = {
        let mut w = Writer(Vec::new());
        w.u32(0)
            .u32(0)
            .u32(1000)
            .u32(movie_ms)
            .u32(0x0001_0000) // rate 1.0
            .u16(0x0100) // volume 1.0
            .zeros(10)
            .bytes(&matrix())
            .zeros(24)
            .u32(2); // next track ID
        full_box(b"mvhd", 0, 0, &w.0)
    };
    let tkhd = {
        let mut w = Writer(Vec::new());
        w.u32(0)
            .u32(0)
            .u32(1) // track ID
            .u32(0)
            .u32(movie_ms)
            .zeros(8)
            .u16(0) // layer
            .u16(0) // alternate group
            .u16(0) // volume: video
            .u16(0)
            .bytes(&matrix())
            .u32(u32::from(track.width) << 16)
            .u32(u32::from(track.height) << 16);
        // Enabled, in the movie, in the preview.
        full_box(b"tkhd", 0, 0x7, &w.0)
    };
    let mdhd = {
        let mut w = Writer(Vec::new());
        w.u32(0)
            .u32(0)
            .u32(TIMESCALE)
            .u32(track_ticks)
            .u16(0x55C4) // language "und"
            .u16(0);
        full_box(b"mdhd", 0, 0, &w.0)
    };
    let hdlr = {
        let mut w = Writer(Vec::new());
        w.u32(0).bytes(b"vide").zeros(12).bytes(b"VideoHandler\0");
        full_box(b"hdlr", 0, 0, &w.0)
    };
    let vmhd = full_box(b"vmhd", 0, 1, &[0; 8]);
    let dinf = {
        let url = full_box(b"url ", 0, 1, &[]);
        let mut w = Writer(Vec::new());
        w.u32(1).bytes(&url);
        mp4_box(b"dinf", &full_box(b"dref", 0, 0, &w.0))
    };
    let minf = mp4_box(
        b"minf",
        &[vmhd, dinf, stbl(track, samples, data_offset)].concat(),
    );
    let mdia = mp4_box(b"mdia", &[mdhd, hdlr, minf].concat());
    let trak = mp4_box(b"trak", &[tkhd, mdia].concat());
    mp4_box(b"moov", &[mvhd, trak].concat())
}

/// The whole file: `ftyp`, `moov`, `mdat`.
pub fn write(track: &Track, samples: &[Sample]) -> Vec<u8> {
    let ftyp = {
        let mut w = Writer(Vec::new());
        w.bytes(b"isom")
            .u32(0x200)
            .bytes(b"isom")
            .bytes(b"iso2")
            .bytes(b"avc1")
            .bytes(b"mp41");
        mp4_box(b"ftyp", &w.0)
    };
    // The offset field has a fixed width, so the table's size does not
    // depend on its value: measure once, then write it for real.
    let moov_len = moov(track, samples, 0).len();
    let data_offset = len_u32(ftyp.len() + moov_len + 8);
    let moov = moov(track, samples, data_offset);
    let data_len: usize = samples.iter().map(|s| s.data.len()).sum();
    let mut out = Vec::with_capacity(ftyp.len() + moov.len() + 8 + data_len);
    out.extend_from_slice(&ftyp);
    out.extend_from_slice(&moov);
    out.extend_from_slice(&len_u32(data_len + 8).to_be_bytes());
    out.extend_from_slice(b"mdat");
    for s in samples {
        out.extend_from_slice(&s.data);
    }
    out
}

/// The NAL units of an Annex B byte stream (start codes removed).
pub fn nal_units(stream: &[u8]) -> Vec<&[u8]> {
    let mut starts = Vec::new();
    let mut i = 0;
    while i + 3 <= stream.len() {
        if stream[i] == 0 && stream[i + 1] == 0 && stream[i + 2] == 1 {
            starts.push((i, i + 3));
            i += 3;
        } else {
            i += 1;
        }
    }
    let mut units = Vec::with_capacity(starts.len());
    for (n, &(_, body)) in starts.iter().enumerate() {
        let mut end = starts.get(n + 1).map_or(stream.len(), |&(code, _)| code);
        // A four-byte start code's leading zero belongs to no unit.
        while end > body && stream[end - 1] == 0 && n + 1 < starts.len() {
            end -= 1;
        }
        if end > body {
            units.push(&stream[body..end]);
        }
    }
    units
}

/// A NAL unit's type (the low five bits of its first byte).
pub fn nal_type(unit: &[u8]) -> u8 {
    unit.first().map_or(0, |b| b & 0x1F)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn boxes(buf: &[u8]) -> Vec<(String, usize)> {
        let mut out = Vec::new();
        let mut i = 0;
        while i + 8 <= buf.len() {
            let size = u32::from_be_bytes([buf[i], buf[i + 1], buf[i + 2], buf[i + 3]]) as usize;
            out.push((
                String::from_utf8_lossy(&buf[i + 4..i + 8]).into_owned(),
                size,
            ));
            i += size.max(8);
        }
        out
    }

    #[test]
    fn nal_units_are_split_on_three_and_four_byte_start_codes() {
        let stream = [
            0, 0, 0, 1, 0x67, 1, 2, 0, 0, 1, 0x68, 3, 0, 0, 0, 1, 0x65, 9, 9,
        ];
        let units = nal_units(&stream);
        assert_eq!(
            units,
            vec![&[0x67, 1, 2][..], &[0x68, 3][..], &[0x65, 9, 9][..]]
        );
        assert_eq!(nal_type(units[2]), 5);
    }

    #[test]
    fn the_file_is_laid_out_for_fast_start_and_its_chunk_offset_points_at_the_data() {
        let track = Track {
            width: 64,
            height: 32,
            sps: vec![0x67, 66, 0, 31],
            pps: vec![0x68, 1],
        };
        let samples = vec![
            Sample {
                data: vec![0, 0, 0, 2, 0x65, 0xAA],
                duration: 45_000,
                sync: true,
            },
            Sample {
                data: vec![0, 0, 0, 1, 0x41],
                duration: 45_000,
                sync: false,
            },
        ];
        let file = write(&track, &samples);
        let top: Vec<String> = boxes(&file).into_iter().map(|(k, _)| k).collect();
        assert_eq!(top, ["ftyp", "moov", "mdat"]);
        let stco = file
            .windows(4)
            .position(|w| w == b"stco")
            .expect("an stco box");
        let offset = u32::from_be_bytes([
            file[stco + 12],
            file[stco + 13],
            file[stco + 14],
            file[stco + 15],
        ]) as usize;
        assert_eq!(&file[offset..offset + 6], &samples[0].data[..]);
        assert_eq!(&file[offset - 4..offset], b"mdat");
    }
}
