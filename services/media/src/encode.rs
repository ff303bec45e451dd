//! A recording's frames to an MP4 file: the captured PNGs (one per distinct
//! picture, each with the time it was captured) are decoded one at a time,
//! scaled to fit 960×540, converted to YUV 4:2:0 (BT.601, limited range, what
//! players assume when the stream says nothing) and encoded with OpenH264 at
//! a constant frame rate: each frame slot shows the newest picture captured
//! at or before its time, so the file's clock is the session's.
//!
//! CPU-bound and blocking: callers run it on a blocking thread.

use std::time::{Duration, Instant};

use fleet_proto::recording::{MAX_HEIGHT, MAX_WIDTH};
use openh264::OpenH264API;
use openh264::encoder::{
    BitRate, Encoder, EncoderConfig, FrameRate, FrameType, IntraFramePeriod, RateControlMode,
    UsageType,
};
use openh264::formats::YUVBuffer;

use crate::mp4::{self, Sample, TIMESCALE, Track};

/// A captured picture.
#[derive(Debug, Clone)]
pub struct Frame {
    /// When it was captured, ms after the recording started.
    pub at_ms: u64,
    /// The PNG the engine painted.
    pub png: Vec<u8>,
}

/// An encoded recording.
#[derive(Debug)]
pub struct Video {
    /// The MP4 file.
    pub mp4: Vec<u8>,
    /// Pixels.
    pub width: u32,
    /// Pixels.
    pub height: u32,
    /// Frames in the file.
    pub frames: u32,
    /// Time spent encoding (decode, scale, convert, encode, mux).
    pub took: Duration,
}

/// Why a recording could not be encoded; the text is shown to agents.
#[derive(Debug, thiserror::Error)]
pub enum EncodeError {
    /// Nothing was captured.
    #[error("no frame was captured")]
    NoFrames,
    /// A stored frame is not a PNG this encoder reads.
    #[error("frame {index} could not be read: {reason}")]
    BadFrame {
        /// Its position among the captured frames.
        index: usize,
        /// What was wrong.
        reason: String,
    },
    /// OpenH264 refused.
    #[error("the H.264 encoder failed: {0}")]
    Encoder(String),
}

/// The largest even size within `MAX_WIDTH`×`MAX_HEIGHT` with the page's
/// aspect ratio (the encoder needs even sides).
pub fn output_size(width: u32, height: u32) -> (u32, u32) {
    let scale = (f64::from(MAX_WIDTH) / f64::from(width.max(1)))
        .min(f64::from(MAX_HEIGHT) / f64::from(height.max(1)))
        .min(1.0);
    let even = |v: f64| -> u32 {
        // Bounded by MAX_WIDTH: the cast cannot overflow.
        #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
        let v = v.floor() as u32;
        (v & !1).max(2)
    };
    (
        even(f64::from(width) * scale),
        even(f64::from(height) * scale),
    )
}

/// A decoded picture, RGBA.
struct Rgba {
    width: usize,
    height: usize,
    pixels: Vec<u8>,
}

fn decode_png(png: &[u8]) -> Result<Rgba, String> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(png));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(|e| e.to_string())?;
    let size = reader
        .output_buffer_size()
        .ok_or_else(|| "the picture is too large".to_owned())?;
    let mut buf = vec![0; size];
    let info = reader.next_frame(&mut buf).map_err(|e| e.to_string())?;
    let (width, height) = (info.width as usize, info.height as usize);
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        png::ColorType::GrayscaleAlpha => 2,
        png::ColorType::Grayscale => 1,
        png::ColorType::Indexed => return Err("an indexed PNG was not expanded".into()),
    };
    let mut pixels = Vec::with_capacity(width * height * 4);
    for px in buf[..info.buffer_size()].chunks_exact(channels) {
        let rgba = match channels {
            4 => [px[0], px[1], px[2], px[3]],
            3 => [px[0], px[1], px[2], 255],
            2 => [px[0], px[0], px[0], px[1]],
            _ => [px[0], px[0], px[0], 255],
        };
        pixels.extend_from_slice(&rgba);
    }
    Ok(Rgba {
        width,
        height,
        pixels,
    })
}

/// For each output position along one axis, the source positions it covers
/// and their weights (an area average: every source pixel counts by the share
/// of it the output pixel covers).
fn coverage(src: usize, dst: usize) -> Vec<Vec<(usize, f32)>> {
    // Sizes are at most a few thousand pixels: f64 holds them exactly.
    #[allow(clippy::cast_precision_loss)]
    let ratio = src as f64 / dst as f64;
    (0..dst)
        .map(|o| {
            #[allow(clippy::cast_precision_loss)]
            let (start, end) = (o as f64 * ratio, (o + 1) as f64 * ratio);
            let mut taps = Vec::new();
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let first = start.floor() as usize;
            let mut i = first;
            #[allow(clippy::cast_precision_loss)]
            while (i as f64) < end && i < src {
                #[allow(clippy::cast_precision_loss)]
                let lo = start.max(i as f64);
                #[allow(clippy::cast_precision_loss)]
                let hi = end.min((i + 1) as f64);
                #[allow(clippy::cast_possible_truncation)]
                let w = ((hi - lo) / ratio) as f32;
                if w > 0.0 {
                    taps.push((i, w));
                }
                i += 1;
            }
            if taps.is_empty() {
                taps.push((first.min(src - 1), 1.0));
            }
            taps
        })
        .collect()
}

/// Scales `img` to `width`×`height`, composites it on white (a page's
/// transparent canvas shows white) and returns RGB.
fn scale_rgb(img: &Rgba, width: usize, height: usize) -> Vec<u8> {
    let xs = coverage(img.width, width);
    let ys = coverage(img.height, height);
    // Horizontal pass first, into f32 rows.
    let mut rows = vec![0f32; img.height * width * 3];
    for y in 0..img.height {
        for (x, taps) in xs.iter().enumerate() {
            let mut acc = [0f32; 3];
            for &(sx, w) in taps {
                let p = (y * img.width + sx) * 4;
                let a = f32::from(img.pixels[p + 3]) / 255.0;
                for (sum, &channel) in acc.iter_mut().zip(&img.pixels[p..p + 3]) {
                    *sum += (f32::from(channel) * a + 255.0 * (1.0 - a)) * w;
                }
            }
            let o = (y * width + x) * 3;
            rows[o..o + 3].copy_from_slice(&acc);
        }
    }
    let mut out = vec![0u8; width * height * 3];
    for (y, taps) in ys.iter().enumerate() {
        for x in 0..width {
            let mut acc = [0f32; 3];
            for &(sy, w) in taps {
                let p = (sy * width + x) * 3;
                for (sum, &v) in acc.iter_mut().zip(&rows[p..p + 3]) {
                    *sum += v * w;
                }
            }
            let o = (y * width + x) * 3;
            for (dst, sum) in out[o..o + 3].iter_mut().zip(acc) {
                // Clamped to 0..=255 first: the cast is exact.
                #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
                let v = sum.round().clamp(0.0, 255.0) as u8;
                *dst = v;
            }
        }
    }
    out
}

/// RGB to planar YUV 4:2:0, BT.601 limited range.
fn rgb_to_i420(rgb: &[u8], width: usize, height: usize) -> Vec<u8> {
    let (cw, ch) = (width / 2, height / 2);
    let mut yuv = vec![0u8; width * height + 2 * cw * ch];
    let (luma, chroma) = yuv.split_at_mut(width * height);
    let (u_plane, v_plane) = chroma.split_at_mut(cw * ch);
    let px = |x: usize, y: usize| {
        let o = (y * width + x) * 3;
        (
            i32::from(rgb[o]),
            i32::from(rgb[o + 1]),
            i32::from(rgb[o + 2]),
        )
    };
    let clamp = |v: i32| u8::try_from(v.clamp(0, 255)).unwrap_or(0);
    for y in 0..height {
        for x in 0..width {
            let (r, g, b) = px(x, y);
            luma[y * width + x] = clamp(((66 * r + 129 * g + 25 * b + 128) >> 8) + 16);
        }
    }
    for y in 0..ch {
        for x in 0..cw {
            let mut sum = (0, 0, 0);
            for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                let (r, g, b) = px(2 * x + dx, 2 * y + dy);
                sum = (sum.0 + r, sum.1 + g, sum.2 + b);
            }
            let (r, g, b) = ((sum.0 + 2) / 4, (sum.1 + 2) / 4, (sum.2 + 2) / 4);
            u_plane[y * cw + x] = clamp(((-38 * r - 74 * g + 112 * b + 128) >> 8) + 128);
            v_plane[y * cw + x] = clamp(((112 * r - 94 * g - 18 * b + 128) >> 8) + 128);
        }
    }
    yuv
}

/// The parameter sets and the picture of one encoded frame.
struct Coded {
    sps: Option<Vec<u8>>,
    pps: Option<Vec<u8>>,
    /// Length-prefixed NAL units, parameter sets left out.
    data: Vec<u8>,
    sync: bool,
}

fn split_units(stream: &[u8], idr: bool) -> Coded {
    let mut coded = Coded {
        sps: None,
        pps: None,
        data: Vec::with_capacity(stream.len()),
        sync: idr,
    };
    for unit in mp4::nal_units(stream) {
        match mp4::nal_type(unit) {
            7 => coded.sps = Some(unit.to_vec()),
            8 => coded.pps = Some(unit.to_vec()),
            t => {
                coded.sync |= t == 5;
                let len = u32::try_from(unit.len()).unwrap_or(u32::MAX);
                coded.data.extend_from_slice(&len.to_be_bytes());
                coded.data.extend_from_slice(unit);
            }
        }
    }
    coded
}

/// Encodes `frames` (sorted by time) as `fps` frames per second for
/// `duration_ms`.
pub fn encode(frames: &[Frame], fps: u32, duration_ms: u64) -> Result<Video, EncodeError> {
    let started = Instant::now();
    let first = frames.first().ok_or(EncodeError::NoFrames)?;
    let fps = fps.max(1);
    let bad = |index: usize| move |reason: String| EncodeError::BadFrame { index, reason };
    // The first picture sets the video's size, and is the first one shown.
    let mut probe = Some(decode_png(&first.png).map_err(bad(0))?);
    let (probe_width, probe_height) = probe.as_ref().map_or((0, 0), |p| (p.width, p.height));
    let (width, height) = output_size(
        u32::try_from(probe_width).unwrap_or(u32::MAX),
        u32::try_from(probe_height).unwrap_or(u32::MAX),
    );
    let (w, h) = (width as usize, height as usize);
    // One slot per 1/fps second, at least one.
    let slots = (duration_ms * u64::from(fps)).div_ceil(1000).max(1);
    let slot_ticks = TIMESCALE / fps;

    let config = EncoderConfig::new()
        .usage_type(UsageType::ScreenContentRealTime)
        .rate_control_mode(RateControlMode::Bitrate)
        .bitrate(BitRate::from_bps(1_000_000))
        .max_frame_rate(FrameRate::from_hz(f32::from(
            u16::try_from(fps).unwrap_or(3),
        )))
        // Every slot is a frame of the file: never drop one to save bits.
        .skip_frames(false)
        // A key frame every two seconds, so players can seek.
        .intra_frame_period(IntraFramePeriod::from_num_frames(2 * fps));
    let mut encoder = Encoder::with_api_config(OpenH264API::from_source(), config)
        .map_err(|e| EncodeError::Encoder(e.to_string()))?;

    let mut samples: Vec<Sample> = Vec::new();
    let (mut sps, mut pps) = (None, None);
    let mut shown: Option<usize> = None;
    let mut yuv: Option<YUVBuffer> = None;
    for slot in 0..slots {
        let at = slot * 1000 / u64::from(fps);
        let index = frames.iter().rposition(|f| f.at_ms <= at).unwrap_or(0);
        if shown != Some(index) {
            let img = match probe.take() {
                Some(img) if index == 0 => img,
                _ => decode_png(&frames[index].png).map_err(bad(index))?,
            };
            let rgb = scale_rgb(&img, w, h);
            yuv = Some(YUVBuffer::from_vec(rgb_to_i420(&rgb, w, h), w, h));
            shown = Some(index);
        }
        let Some(picture) = yuv.as_ref() else {
            return Err(EncodeError::NoFrames);
        };
        let stream = encoder
            .encode_at(picture, openh264::Timestamp::from_millis(at))
            .map_err(|e| EncodeError::Encoder(e.to_string()))?;
        let idr = stream.frame_type() == FrameType::IDR;
        let coded = split_units(&stream.to_vec(), idr);
        sps = sps.or(coded.sps);
        pps = pps.or(coded.pps);
        if coded.data.is_empty() {
            // The encoder skipped the picture: the previous one shows longer.
            if let Some(last) = samples.last_mut() {
                last.duration += slot_ticks;
            }
            continue;
        }
        samples.push(Sample {
            data: coded.data,
            duration: slot_ticks,
            sync: coded.sync,
        });
    }
    let (Some(sps), Some(pps)) = (sps, pps) else {
        return Err(EncodeError::Encoder(
            "the stream carried no parameter sets".into(),
        ));
    };
    let track = Track {
        width: u16::try_from(width).unwrap_or(u16::MAX),
        height: u16::try_from(height).unwrap_or(u16::MAX),
        sps,
        pps,
    };
    let mp4 = mp4::write(&track, &samples);
    Ok(Video {
        mp4,
        width,
        height,
        frames: u32::try_from(samples.len()).unwrap_or(u32::MAX),
        took: started.elapsed(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_of(width: u32, height: u32, rgb: [u8; 3]) -> Vec<u8> {
        let mut out = Vec::new();
        {
            let mut enc = png::Encoder::new(&mut out, width, height);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            let mut w = enc.write_header().expect("header");
            let px: Vec<u8> = (0..width * height)
                .flat_map(|_| [rgb[0], rgb[1], rgb[2], 255])
                .collect();
            w.write_image_data(&px).expect("data");
        }
        out
    }

    #[test]
    fn a_viewport_is_scaled_to_fit_960_by_540_with_even_sides() {
        assert_eq!(output_size(1280, 720), (960, 540));
        assert_eq!(output_size(800, 600), (720, 540));
        assert_eq!(output_size(641, 361), (640, 360));
        assert_eq!(output_size(1, 1), (2, 2));
    }

    #[test]
    fn white_encodes_as_limited_range_white_and_black_as_black() {
        let white = rgb_to_i420(&[255; 12], 2, 2);
        assert_eq!(white[0], 235);
        assert_eq!((white[4], white[5]), (128, 128));
        let black = rgb_to_i420(&[0; 12], 2, 2);
        assert_eq!(black[0], 16);
    }

    #[test]
    fn scaling_averages_the_area_each_pixel_covers() {
        let img = Rgba {
            width: 4,
            height: 1,
            pixels: [
                [0, 0, 0, 255],
                [0, 0, 0, 255],
                [255, 255, 255, 255],
                [255, 255, 255, 255],
            ]
            .concat(),
        };
        assert_eq!(scale_rgb(&img, 2, 1), vec![0, 0, 0, 255, 255, 255]);
        let third = scale_rgb(&img, 3, 1);
        assert_eq!(third[0], 0);
        assert_eq!(third[3], 128);
        assert_eq!(third[6], 255);
    }

    #[test]
    fn a_recording_has_one_frame_per_slot_and_starts_with_a_key_frame() {
        let frames = vec![
            Frame {
                at_ms: 0,
                png: png_of(64, 48, [200, 30, 30]),
            },
            Frame {
                at_ms: 1200,
                png: png_of(64, 48, [30, 30, 200]),
            },
        ];
        let video = encode(&frames, 2, 3000).expect("encoded");
        assert_eq!((video.width, video.height), (64, 48));
        assert_eq!(video.frames, 6);
        assert_eq!(&video.mp4[4..8], b"ftyp");
    }
}
