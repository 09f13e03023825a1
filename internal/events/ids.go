package events

import (
	"crypto/aes"
	"crypto/cipher"
	"encoding/base32"
	"encoding/binary"
)

// IDs makes the ids events are answered with: "evt_" and the event's
// number enciphered (AES, one block) under a key of the database's own, in
// 26 characters of base32. Every team's events are numbered by one
// sequence, so the number itself would tell a team how many events the
// other teams' writes made between two of its own. Enciphered, an event's
// id is the same on every instance and in every answer — the log, the
// stream, a history, a webhook's delivery and its webhook-id — and tells
// nothing of any other.
type IDs struct{ block cipher.Block }

// IDKeySize is the size of the key of NewIDs.
const IDKeySize = 16

// NewIDs makes event ids under key (IDKeySize bytes).
func NewIDs(key []byte) (*IDs, error) {
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return &IDs{block: block}, nil
}

// idText writes ids: base32 in lower case, without padding.
var idText = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// Append appends the id of the event numbered seq.
func (x *IDs) Append(b []byte, seq int64) []byte {
	var block [aes.BlockSize]byte
	binary.BigEndian.PutUint64(block[:8], uint64(seq))
	x.block.Encrypt(block[:], block[:])
	return idText.AppendEncode(append(b, "evt_"...), block[:])
}

// ID is the id of the event numbered seq.
func (x *IDs) ID(seq int64) string {
	var b [idLen]byte
	return string(x.Append(b[:0], seq))
}

// idLen is an id's length: "evt_" and one AES block in base32.
const idLen = len("evt_") + (aes.BlockSize*8+4)/5

// Seq is the number of the event whose id is id; ok is false when id is
// not one these IDs made.
func (x *IDs) Seq(id string) (seq int64, ok bool) {
	b, err := idText.DecodeString(id[min(len(id), len("evt_")):])
	if err != nil || len(b) != aes.BlockSize || id[:min(len(id), len("evt_"))] != "evt_" {
		return 0, false
	}
	x.block.Decrypt(b, b)
	if binary.BigEndian.Uint64(b[8:]) != 0 {
		return 0, false
	}
	return int64(binary.BigEndian.Uint64(b[:8])), true
}

// SealPosition writes an event's place in the log — its transaction and
// its number — enciphered as one AES block, for cursors: a cursor is
// signed, not enciphered, and the numbers in it would tell what the ids
// hide.
func (x *IDs) SealPosition(tx, seq int64) string {
	var block [aes.BlockSize]byte
	binary.BigEndian.PutUint64(block[:8], uint64(tx))
	binary.BigEndian.PutUint64(block[8:], uint64(seq))
	x.block.Encrypt(block[:], block[:])
	return idText.EncodeToString(block[:])
}

// OpenPosition reads a place SealPosition wrote.
func (x *IDs) OpenPosition(s string) (tx, seq int64, ok bool) {
	b, err := idText.DecodeString(s)
	if err != nil || len(b) != aes.BlockSize {
		return 0, 0, false
	}
	x.block.Decrypt(b, b)
	return int64(binary.BigEndian.Uint64(b[:8])), int64(binary.BigEndian.Uint64(b[8:])), true
}
