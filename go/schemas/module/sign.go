package module

import (
	"bytes"
	"crypto/ed25519"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/gree-ml/gree/go/status"
)

// A signed module file is an unsigned one with bit FlagSigned set in the
// header's flags word (offset 12, formerly reserved) and a signature
// block appended after the blob area, counted in the header's total
// length:
//
//	offset 0   magic "GREESIG1" (8 bytes)
//	offset 8   u32 algorithm (1: Ed25519)
//	offset 12  u32 reserved (0)
//	offset 16  the signer's Ed25519 public key (32 bytes)
//	offset 48  the Ed25519 signature (64 bytes) of every byte of the file
//	           before it: header, metadata, blob area and the block's
//	           first 48 bytes
//
// Runtimes that predate signatures ignore the flag and the block, so a
// signed module loads everywhere; an unsigned one loads wherever no
// signature is required.
const (
	// FlagSigned marks a file that ends with a signature block.
	FlagSigned = 1
	// SignatureMagic starts the signature block.
	SignatureMagic = "GREESIG1"
	// SignatureSize is the size of the signature block.
	SignatureSize = 112
	// sigEd25519 is the algorithm word of an Ed25519 signature.
	sigEd25519 = 1
)

// Signature is a module file's signature block.
type Signature struct {
	// Signer is the public key the block names.
	Signer ed25519.PublicKey
	// Sig is the signature of the file's first len-64 bytes.
	Sig []byte
}

// signatureBlock returns data's signature block (nil for an unsigned
// file). data must have passed the header checks of Decode.
func signatureBlock(data []byte) (*Signature, error) {
	flags := binary.LittleEndian.Uint32(data[12:])
	if flags&^FlagSigned != 0 {
		return nil, status.Errorf(status.InvalidArgument, "module file has unknown header flags %#x (a newer format?)", flags)
	}
	if flags&FlagSigned == 0 {
		return nil, nil
	}
	if len(data) < headerSize+SignatureSize {
		return nil, status.Errorf(status.DataLoss, "module file is marked signed but is too short for a signature block")
	}
	b := data[len(data)-SignatureSize:]
	if string(b[:8]) != SignatureMagic || binary.LittleEndian.Uint32(b[8:]) != sigEd25519 || binary.LittleEndian.Uint32(b[12:]) != 0 {
		return nil, status.Errorf(status.DataLoss, "module file is marked signed but does not end with an Ed25519 signature block")
	}
	return &Signature{Signer: ed25519.PublicKey(bytes.Clone(b[16:48])), Sig: bytes.Clone(b[48:])}, nil
}

// KeyID names a public key in messages and listings: "ed25519:" and the
// first 16 hex digits of the key's SHA-256.
func KeyID(pub ed25519.PublicKey) string {
	h := sha256.Sum256(pub)
	return "ed25519:" + hex.EncodeToString(h[:8])
}

// Sign returns a copy of the module file data signed with key: the flag
// set, any previous signature block replaced by a new one. data must be a
// valid module.
func Sign(data []byte, key ed25519.PrivateKey) ([]byte, error) {
	if len(key) != ed25519.PrivateKeySize {
		return nil, status.Errorf(status.InvalidArgument, "module signing key has %d bytes, want an Ed25519 private key", len(key))
	}
	m, err := Decode(data)
	if err != nil {
		return nil, err
	}
	if m.Signature != nil {
		data = data[:len(data)-SignatureSize]
	}
	out := make([]byte, len(data), len(data)+SignatureSize)
	copy(out, data)
	binary.LittleEndian.PutUint32(out[12:], binary.LittleEndian.Uint32(out[12:])|FlagSigned)
	binary.LittleEndian.PutUint64(out[48:], uint64(len(data)+SignatureSize))
	out = append(out, SignatureMagic...)
	out = binary.LittleEndian.AppendUint32(out, sigEd25519)
	out = binary.LittleEndian.AppendUint32(out, 0)
	out = append(out, key.Public().(ed25519.PublicKey)...)
	out = append(out, ed25519.Sign(key, out)...)
	return out, nil
}

// VerifySignature checks that the module file data carries a signature
// that verifies with one of the trusted keys; otherwise it returns a
// PERMISSION_DENIED error naming the module (name) and the keys.
func VerifySignature(data []byte, name string, trusted []ed25519.PublicKey) error {
	var ids []string
	for _, k := range trusted {
		ids = append(ids, KeyID(k))
	}
	want := strings.Join(ids, ", ")
	deny := func(format string, args ...any) error {
		return status.Errorf(status.PermissionDenied, "module '%s' %s; the runtime trusts only modules signed by %s (--module_trust)", name, fmt.Sprintf(format, args...), want)
	}
	if len(trusted) == 0 {
		return status.Errorf(status.PermissionDenied, "module '%s': no trusted keys to verify it with", name)
	}
	if len(data) < headerSize || string(data[:8]) != Magic {
		return deny("is not a module file")
	}
	sig, err := signatureBlock(data)
	if err != nil {
		return deny("has a damaged signature block (%v)", err)
	}
	if sig == nil {
		return deny("is not signed")
	}
	for _, k := range trusted {
		if bytes.Equal(k, sig.Signer) {
			if !ed25519.Verify(k, data[:len(data)-ed25519.SignatureSize], sig.Sig) {
				return deny("is signed by key %s, but the signature does not verify: the file was changed after signing", KeyID(sig.Signer))
			}
			return nil
		}
	}
	return deny("is signed by key %s, which is not trusted", KeyID(sig.Signer))
}
