//! The heap of the tab's reusable realm (see `realm.rs`): the allocator
//! QuickJS gets for that one runtime, whose whole state — the memory it
//! handed out and its own bookkeeping — is saved once, right after the
//! realm's preludes ran, and put back in place for each later document.
//! Putting ≈2 MiB back is a copy; making a realm is the preludes' evaluation
//! and freeing one is a walk of its heap, which together were two thirds of
//! a busy worker's CPU (README, "Load").
//!
//! In place means at the same addresses, so that every pointer the saved heap
//! holds, into itself or out of it (the natives' closures, the preludes'
//! bytecode, rquickjs's bookkeeping), is valid again. The chunks the saved
//! heap lives in are therefore never given back while the tab lives, and
//! what was allocated after the save is given back when the heap is put
//! back. QuickJS itself packs small objects into 4 KiB pages of its own and
//! asks its allocator only for those and for larger blocks, so this one is a
//! few size classes over bump-allocated chunks, with blocks above the largest
//! class allocated on their own.

use std::alloc::{self, Layout};
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::ptr;

use rquickjs::allocator::Allocator;

/// A block as QuickJS sees it.
type RawMemPtr = *mut u8;

/// Alignment of every block: QuickJS's largest scalar is 8 bytes.
const ALIGN: usize = 8;

/// Bytes before each block: its capacity and whether it is huge.
const HEADER: usize = 8;

/// Bytes the heap takes from the process's allocator at a time.
const CHUNK: usize = 256 * 1024;

/// The largest block a size class serves; larger ones are huge.
const LARGEST_CLASS: usize = 64 * 1024;

/// Size classes: 16, 32, 48 and 64 bytes, then four per power of two up to
/// [`LARGEST_CLASS`] (at most 25 % rounding).
const CLASSES: usize = 4 + 4 * 10;

/// The header's mark of a block allocated on its own.
const HUGE: u32 = 1;

/// The heap's bookkeeping, all of which a save keeps.
#[derive(Clone)]
struct Books {
    /// The first free block of each class (0: none); each free block holds
    /// the address of the next.
    free: [usize; CLASSES],
    /// Where the next new block goes, in the last chunk, and that chunk's end.
    bump: usize,
    end: usize,
    /// Each chunk's address and how far it was used when the next was taken.
    chunks: Vec<(usize, usize)>,
    /// Huge blocks handed out (header address → bytes with the header).
    huge: BTreeMap<usize, usize>,
}

/// The heap as it was right after the realm was made.
struct Saved {
    books: Books,
    /// Every byte of the heap in use then, by address.
    regions: Vec<(usize, Box<[u8]>)>,
}

struct Heap {
    books: Books,
    saved: Option<Saved>,
}

thread_local! {
    static HEAP: RefCell<Heap> = const { RefCell::new(Heap::new()) };
}

/// The allocator of the reusable realm's runtime: the tab's one [`HEAP`].
pub(super) struct ReusableHeap;

#[allow(unsafe_code)]
// SAFETY: every block is 8-byte aligned (chunks are, and headers and class
// sizes are multiples of 8), at least as large as asked, and its header
// records its capacity, which `usable_size` reads; a failed allocation is a
// null pointer, which QuickJS reports as out of memory.
unsafe impl Allocator for ReusableHeap {
    fn alloc(&mut self, size: usize) -> RawMemPtr {
        with_heap(ptr::null_mut(), |heap| heap.alloc(size))
    }

    fn calloc(&mut self, count: usize, size: usize) -> RawMemPtr {
        let Some(bytes) = count.checked_mul(size) else {
            return ptr::null_mut();
        };
        let block = with_heap(ptr::null_mut(), |heap| heap.alloc(bytes));
        if !block.is_null() {
            // SAFETY: the block was just handed out with room for `bytes`.
            unsafe { ptr::write_bytes(block, 0, bytes) };
        }
        block
    }

    unsafe fn dealloc(&mut self, block: RawMemPtr) {
        // SAFETY: QuickJS frees only blocks this allocator handed out.
        with_heap((), |heap| unsafe { heap.free(block) });
    }

    unsafe fn realloc(&mut self, block: RawMemPtr, new_size: usize) -> RawMemPtr {
        // SAFETY: as for `dealloc`; a grown block is copied before the old
        // one is freed.
        unsafe {
            let capacity = capacity_of(block);
            if new_size <= capacity {
                return block;
            }
            let grown = with_heap(ptr::null_mut(), |heap| heap.alloc(new_size));
            if !grown.is_null() {
                ptr::copy_nonoverlapping(block, grown, capacity);
                with_heap((), |heap| heap.free(block));
            }
            grown
        }
    }

    unsafe fn usable_size(block: RawMemPtr) -> usize {
        // SAFETY: as for `dealloc`.
        unsafe { capacity_of(block) }
    }
}

/// Run `f` on the tab's heap; a call that finds it in use (which QuickJS,
/// calling the allocator only from outside it, never makes) fails.
fn with_heap<R>(failed: R, f: impl FnOnce(&mut Heap) -> R) -> R {
    HEAP.with(|heap| {
        heap.try_borrow_mut()
            .map_or(failed, |mut heap| f(&mut heap))
    })
}

/// The capacity a block's header records.
#[allow(unsafe_code)]
unsafe fn capacity_of(block: RawMemPtr) -> usize {
    // SAFETY: the caller's block has a header before it, written by `alloc`.
    unsafe { ptr::read(block.sub(HEADER).cast::<u32>()) as usize }
}

/// The class of a request and its capacity.
fn class_of(size: usize) -> (usize, usize) {
    let size = size.max(1);
    if size <= 64 {
        let capacity = size.div_ceil(16) * 16;
        return (capacity / 16 - 1, capacity);
    }
    // A request in (2^k, 2^(k+1)] rounds up to a quarter of 2^k.
    let k = (usize::BITS - 1 - (size - 1).leading_zeros()) as usize;
    let step = 1 << (k - 2);
    let quarters = size.div_ceil(step);
    (4 + (k - 6) * 4 + (quarters - 5), quarters * step)
}

impl Heap {
    fn alloc(&mut self, size: usize) -> RawMemPtr {
        if size > LARGEST_CLASS {
            return self.alloc_huge(size);
        }
        let (class, capacity) = class_of(size);
        let head = self.books.free[class];
        if head != 0 {
            self.books.free[class] = next_free(head);
            return head as RawMemPtr;
        }
        if self.books.bump + HEADER + capacity > self.books.end && !self.new_chunk() {
            return ptr::null_mut();
        }
        let header = self.books.bump;
        self.books.bump += HEADER + capacity;
        #[allow(unsafe_code)]
        // SAFETY: `header` starts `HEADER + capacity` unused bytes of a chunk.
        unsafe {
            write_header(header, capacity, 0);
        }
        (header + HEADER) as RawMemPtr
    }

    /// Take the next chunk from the process (false when there is no memory).
    fn new_chunk(&mut self) -> bool {
        let Ok(layout) = Layout::from_size_align(CHUNK, ALIGN) else {
            return false;
        };
        #[allow(unsafe_code)]
        // SAFETY: the layout has a non-zero size.
        let chunk = unsafe { alloc::alloc(layout) } as usize;
        if chunk == 0 {
            return false;
        }
        if let Some(last) = self.books.chunks.last_mut() {
            last.1 = self.books.bump;
        }
        self.books.chunks.push((chunk, chunk));
        self.books.bump = chunk;
        self.books.end = chunk + CHUNK;
        true
    }

    fn alloc_huge(&mut self, size: usize) -> RawMemPtr {
        let Some(capacity) = size.checked_next_multiple_of(ALIGN) else {
            return ptr::null_mut();
        };
        let Ok(capacity32) = u32::try_from(capacity) else {
            return ptr::null_mut();
        };
        let Ok(layout) = Layout::from_size_align(HEADER + capacity, ALIGN) else {
            return ptr::null_mut();
        };
        #[allow(unsafe_code)]
        // SAFETY: the layout has a non-zero size; the header fits before the
        // capacity asked for.
        unsafe {
            let header = alloc::alloc(layout) as usize;
            if header == 0 {
                return ptr::null_mut();
            }
            write_header(header, capacity32 as usize, HUGE);
            self.books.huge.insert(header, layout.size());
            (header + HEADER) as RawMemPtr
        }
    }

    #[allow(unsafe_code)]
    unsafe fn free(&mut self, block: RawMemPtr) {
        if block.is_null() {
            return;
        }
        // SAFETY: `block` was handed out by `alloc`, so a header precedes it.
        unsafe {
            let header = block as usize - HEADER;
            let capacity = capacity_of(block);
            if ptr::read((header + 4) as *const u32) == HUGE {
                // A huge block of the saved heap stays: putting the heap
                // back needs it where it is.
                let saved = self
                    .saved
                    .as_ref()
                    .is_some_and(|saved| saved.books.huge.contains_key(&header));
                if !saved && let Some(size) = self.books.huge.remove(&header) {
                    alloc::dealloc(
                        header as *mut u8,
                        Layout::from_size_align_unchecked(size, ALIGN),
                    );
                }
                return;
            }
            let (class, _) = class_of(capacity);
            ptr::write(block.cast::<usize>(), self.books.free[class]);
            self.books.free[class] = block as usize;
        }
    }

    /// Every byte in use: the chunks up to where they were used, and the
    /// huge blocks.
    fn regions(&self) -> Vec<(usize, usize)> {
        let last = self.books.chunks.len().saturating_sub(1);
        let chunks = self
            .books
            .chunks
            .iter()
            .enumerate()
            .map(|(i, &(start, used))| (start, if i == last { self.books.bump } else { used }));
        chunks
            .chain(self.books.huge.iter().map(|(&at, &size)| (at, at + size)))
            .collect()
    }
}

/// The free block after `block` in its class's list.
#[allow(unsafe_code)]
fn next_free(block: usize) -> usize {
    // SAFETY: a free block's first word is the next free block (`free`).
    unsafe { ptr::read(block as *const usize) }
}

#[allow(unsafe_code)]
unsafe fn write_header(header: usize, capacity: usize, mark: u32) {
    // SAFETY: the caller owns the 8 bytes at `header`; capacities fit u32
    // (classes are ≤ 64 KiB, huge ones are checked).
    unsafe {
        ptr::write(header as *mut u32, capacity as u32);
        ptr::write((header + 4) as *mut u32, mark);
    }
}

impl Heap {
    const fn new() -> Self {
        Heap {
            books: Books {
                free: [0; CLASSES],
                bump: 0,
                end: 0,
                chunks: Vec::new(),
                huge: BTreeMap::new(),
            },
            saved: None,
        }
    }

    fn save(&mut self) {
        let regions = self
            .regions()
            .into_iter()
            .map(|(start, end)| {
                #[allow(unsafe_code)]
                // SAFETY: each region is memory of this heap, in use.
                let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, end - start) };
                (start, Box::from(bytes))
            })
            .collect();
        self.saved = Some(Saved {
            books: self.books.clone(),
            regions,
        });
    }

    fn put_back(&mut self) -> bool {
        let Some(saved) = self.saved.as_ref() else {
            return false;
        };
        #[allow(unsafe_code)]
        // SAFETY: the regions are the saved heap's memory, which is never
        // given back while a save exists; chunks and huge blocks taken since
        // the save were allocated here with these layouts, and nothing uses
        // them once the heap is put back.
        unsafe {
            for (start, bytes) in &saved.regions {
                ptr::copy_nonoverlapping(bytes.as_ptr(), *start as *mut u8, bytes.len());
            }
            for &(chunk, _) in &self.books.chunks[saved.books.chunks.len()..] {
                alloc::dealloc(
                    chunk as *mut u8,
                    Layout::from_size_align_unchecked(CHUNK, ALIGN),
                );
            }
            for (&header, &size) in &self.books.huge {
                if !saved.books.huge.contains_key(&header) {
                    alloc::dealloc(
                        header as *mut u8,
                        Layout::from_size_align_unchecked(size, ALIGN),
                    );
                }
            }
        }
        self.books = saved.books.clone();
        true
    }

    fn discard(&mut self) {
        #[allow(unsafe_code)]
        // SAFETY: the caller's runtime that used this memory is gone.
        unsafe {
            for &(chunk, _) in &self.books.chunks {
                alloc::dealloc(
                    chunk as *mut u8,
                    Layout::from_size_align_unchecked(CHUNK, ALIGN),
                );
            }
            for (&header, &size) in &self.books.huge {
                alloc::dealloc(
                    header as *mut u8,
                    Layout::from_size_align_unchecked(size, ALIGN),
                );
            }
        }
        *self = Heap::new();
    }

    /// Bytes the heap holds from the process, and bytes its save keeps.
    #[cfg(test)]
    fn footprint(&self) -> (usize, usize) {
        let huge: usize = self.books.huge.values().sum();
        let saved = self.saved.as_ref().map_or(0, |saved| {
            saved.regions.iter().map(|(_, bytes)| bytes.len()).sum()
        });
        (self.books.chunks.len() * CHUNK + huge, saved)
    }
}

/// Save the tab's heap as it is now: the realm was just made.
pub(super) fn save() {
    HEAP.with(|heap| heap.borrow_mut().save());
}

/// Put the saved heap back in place; false if there is none. The caller
/// guarantees nothing refers to what the heap held since the save: no
/// handle of the runtime's values or contexts but the saved ones is alive.
pub(super) fn put_back() -> bool {
    HEAP.with(|heap| heap.borrow_mut().put_back())
}

/// Give everything back (a reusable realm that failed to be made, once its
/// runtime is gone).
pub(super) fn discard() {
    HEAP.with(|heap| heap.borrow_mut().discard());
}

/// Bytes the tab's heap holds from the process, and bytes its save keeps.
#[cfg(test)]
pub(super) fn footprint() -> (usize, usize) {
    HEAP.with(|heap| heap.borrow().footprint())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[allow(unsafe_code)]
    fn fill(block: RawMemPtr, size: usize, byte: u8) {
        // SAFETY: the tests fill only blocks they were handed, within size.
        unsafe { ptr::write_bytes(block, byte, size) };
    }

    #[allow(unsafe_code)]
    fn holds(block: RawMemPtr, size: usize, byte: u8) -> bool {
        // SAFETY: as for `fill`.
        unsafe { std::slice::from_raw_parts(block, size) }
            .iter()
            .all(|&b| b == byte)
    }

    #[allow(unsafe_code)]
    #[test]
    fn a_heap_put_back_holds_what_it_held_at_the_save_and_gives_back_what_came_after() {
        let mut heap = Heap::new();
        // Before the save: blocks of several classes and a huge one.
        let sizes = [8, 100, 4080, 70_000];
        let saved: Vec<_> = sizes.iter().map(|&size| (heap.alloc(size), size)).collect();
        for (i, &(block, size)) in saved.iter().enumerate() {
            assert!(!block.is_null());
            assert_eq!(block as usize % ALIGN, 0);
            // SAFETY: blocks of this heap.
            assert!(unsafe { ReusableHeap::usable_size(block) } >= size);
            fill(block, size, i as u8 + 1);
        }
        heap.save();
        let (held, kept) = heap.footprint();
        assert!(kept >= sizes.iter().sum::<usize>());
        let next_after_save = heap.alloc(4080);

        // A document: overwrites, frees (the saved huge block too), and
        // takes several more chunks and huge blocks.
        for &(block, size) in &saved {
            fill(block, size, 0xee);
        }
        // SAFETY: blocks of this heap, freed once.
        unsafe {
            heap.free(saved[1].0);
            heap.free(saved[3].0);
        }
        for _ in 0..200 {
            assert!(!heap.alloc(4080).is_null());
        }
        for _ in 0..3 {
            assert!(!heap.alloc(100_000).is_null());
        }
        assert!(
            heap.footprint().0 > held + 3 * CHUNK,
            "the document took more memory"
        );

        assert!(heap.put_back());
        for (i, &(block, size)) in saved.iter().enumerate() {
            assert!(
                holds(block, size, i as u8 + 1),
                "block {i} was not put back"
            );
        }
        assert_eq!(
            heap.footprint(),
            (held, kept),
            "what came after the save was not given back"
        );
        // The bookkeeping is the saved one: the same block comes next.
        assert_eq!(heap.alloc(4080), next_after_save);
        // And it can be put back again.
        assert!(heap.put_back());
        assert_eq!(heap.footprint(), (held, kept));
        heap.discard();
        assert_eq!(heap.footprint(), (0, 0));
        assert!(!heap.put_back(), "a discarded heap has no save");
    }

    #[test]
    fn every_size_gets_a_class_that_holds_it() {
        let mut last = class_of(1);
        assert_eq!(last, (0, 16));
        for size in 2..=LARGEST_CLASS {
            let (class, capacity) = class_of(size);
            assert!(class < CLASSES, "{size}");
            assert!(capacity >= size && capacity % ALIGN == 0, "{size}");
            assert!(
                class >= last.0 && (class > last.0 || capacity == last.1),
                "{size}"
            );
            assert_eq!(class_of(capacity), (class, capacity), "{size}");
            last = (class, capacity);
        }
        assert_eq!(last.0, CLASSES - 1);
    }
}
