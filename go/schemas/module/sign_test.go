package module

import (
	"bytes"
	"crypto/ed25519"
	"encoding/binary"
	"encoding/hex"
	"strings"
	"testing"

	"github.com/gree-ml/gree/go/status"
)

func testKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

func pub(k ed25519.PrivateKey) ed25519.PublicKey { return k.Public().(ed25519.PublicKey) }

func TestSignAndVerify(t *testing.T) {
	data := Encode(sample())
	key, other := testKey(1), testKey(2)
	signed, err := Sign(data, key)
	if err != nil {
		t.Fatal(err)
	}
	if len(signed) != len(data)+SignatureSize || !bytes.Equal(signed[56:len(data)], data[56:]) {
		t.Fatalf("signing changed the module's sections")
	}
	m, err := Decode(signed)
	if err != nil {
		t.Fatalf("Decode(signed): %v", err)
	}
	if m.Signature == nil || !bytes.Equal(m.Signature.Signer, pub(key)) || m.Name != "arith" {
		t.Fatalf("decoded signature %+v", m.Signature)
	}
	if u, _ := Decode(data); u.Signature != nil {
		t.Fatalf("unsigned module has a signature")
	}
	if err := VerifySignature(signed, "arith", []ed25519.PublicKey{pub(other), pub(key)}); err != nil {
		t.Fatalf("VerifySignature: %v", err)
	}
	// Re-signing replaces the block.
	again, err := Sign(signed, other)
	if err != nil || len(again) != len(signed) || VerifySignature(again, "arith", []ed25519.PublicKey{pub(other)}) != nil {
		t.Fatalf("re-signing: %v", err)
	}
	for _, tc := range []struct {
		name    string
		data    []byte
		trusted []ed25519.PublicKey
		want    string
	}{
		{"unsigned", data, []ed25519.PublicKey{pub(key)}, "is not signed"},
		{"untrusted signer", signed, []ed25519.PublicKey{pub(other)}, "signed by key " + KeyID(pub(key)) + ", which is not trusted"},
		{"no keys", signed, nil, "no trusted keys"},
		{"not a module", []byte("hello"), []ed25519.PublicKey{pub(key)}, "not a module file"},
	} {
		err := VerifySignature(tc.data, "arith", tc.trusted)
		if status.CodeOf(err) != status.PermissionDenied || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "module 'arith'") {
			t.Errorf("%s: %v, want PERMISSION_DENIED containing %q", tc.name, err, tc.want)
		}
	}
	// Every byte but the signature itself is covered: a change anywhere
	// else fails verification (or decoding), never passes.
	for i := 0; i < len(signed); i++ {
		d := bytes.Clone(signed)
		d[i] ^= 0x20
		err := VerifySignature(d, "arith", []ed25519.PublicKey{pub(key)})
		if err == nil {
			t.Fatalf("flipping byte %d of %d: the signature still verifies", i, len(signed))
		}
	}
}

func TestSignedFileChecks(t *testing.T) {
	signed, err := Sign(Encode(sample()), testKey(1))
	if err != nil {
		t.Fatal(err)
	}
	// A runtime that predates signatures only checks the total length and
	// the sections: both still hold.
	if total := binary.LittleEndian.Uint64(signed[48:]); total != uint64(len(signed)) {
		t.Fatalf("total length %d, file %d", total, len(signed))
	}
	d := bytes.Clone(signed)
	copy(d[len(d)-SignatureSize:], "GREESIG9")
	if _, err := Decode(d); status.CodeOf(err) != status.DataLoss {
		t.Errorf("bad signature magic: %v", err)
	}
	d = bytes.Clone(signed)
	binary.LittleEndian.PutUint32(d[12:], 2)
	if _, err := Decode(d); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("unknown flag: %v", err)
	}
	// Sections reaching into the signature block are corrupt.
	d = bytes.Clone(signed)
	binary.LittleEndian.PutUint64(d[40:], binary.LittleEndian.Uint64(d[40:])+SignatureSize)
	if _, err := Decode(d); status.CodeOf(err) != status.DataLoss {
		t.Errorf("blob area over the signature: %v", err)
	}
	for n := 0; n < len(signed); n++ {
		Decode(signed[:n]) // must not panic
	}
}

func TestKeyFiles(t *testing.T) {
	priv, public, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	k, err := ParsePrivateKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	p, err := ParsePublicKey(public)
	if err != nil || !bytes.Equal(p, pub(k)) {
		t.Fatalf("public key %x, %v; want %x", p, err, pub(k))
	}
	seed := k.Seed()
	for _, form := range [][]byte{seed, []byte(hex.EncodeToString(seed) + "\n"), k, []byte(hex.EncodeToString(k))} {
		if got, err := ParsePrivateKey(form); err != nil || !bytes.Equal(got, k) {
			t.Errorf("private key of %d bytes: %v", len(form), err)
		}
	}
	for _, form := range [][]byte{p, []byte(hex.EncodeToString(p) + "\n")} {
		if got, err := ParsePublicKey(form); err != nil || !bytes.Equal(got, p) {
			t.Errorf("public key of %d bytes: %v", len(form), err)
		}
	}
	for _, bad := range [][]byte{nil, []byte("short"), public} {
		if _, err := ParsePrivateKey(bad); status.CodeOf(err) != status.InvalidArgument {
			t.Errorf("ParsePrivateKey(%q): %v", bad, err)
		}
	}
	if _, err := ParsePublicKey(priv); status.CodeOf(err) != status.InvalidArgument {
		t.Errorf("ParsePublicKey(private key): %v", err)
	}
	if id := KeyID(p); !strings.HasPrefix(id, "ed25519:") || len(id) != len("ed25519:")+16 {
		t.Errorf("KeyID = %q", id)
	}
}
