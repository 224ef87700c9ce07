// Package faults is frameproof's faulty file system: an in-memory env.FS with
// a page-cache model, crash states and injected I/O errors, for crash tests of
// the store backends.
//
// The model is deliberately conservative (ALICE / LazyFS style, see
// shared/reference/anchors.md §5):
//
//   - File data. Every Write (and the truncation done by Create on an existing
//     file) is a pending operation on the file's inode until File.Sync. A
//     crash keeps, per file, a prefix of its pending operations; the first
//     dropped write may be torn at any byte and may leave zeros or garbage
//     after the torn prefix (the file grew but the data never reached disk).
//     With Options.Subset a crash may instead be a subset crash (its mode is
//     one more decision): any subset of the block-sized pieces written since
//     the file's last fsync survives, reordered as ALICE and LazyFS allow,
//     and a dropped piece before a surviving one reads back as zeros.
//   - Names. Create of a new file, Rename and Remove are pending directory
//     operations until SyncDir of the directory involved. Directory operations
//     form one ordered journal: SyncDir(d) makes durable every pending
//     directory operation up to the last one touching d, and a crash keeps a
//     prefix of the journal. So an unsynced create may vanish and an unsynced
//     rename may be lost (the old name stays). File data and names are
//     independent: a synced file whose create was never made durable vanishes.
//   - fsync errors. After a failed Sync the file's pending data counts as lost,
//     as on Linux (Rebello et al., ATC'20): reads keep showing it (the page
//     cache still holds it) but the disk gets zeros in its place and later
//     successful syncs never bring it back.
//   - Directories themselves (MkdirAll) are durable at once.
//
// Every decision a crash or an injected fault makes is drawn from a
// choice.Source (sim/choice), the one source of a run's decisions: a seeded
// generator (choice.NewSeeded), a rapid *T (choice.FromRapid) or an
// exhaustive choice.Enumerate drive it, and the same choices give the same
// crash state. Value 0 is the simplest outcome: no injected fault, nothing
// unsynced kept, a prefix crash.
package faults
