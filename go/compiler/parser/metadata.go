package parser

import (
	"encoding/hex"
	"strings"

	"github.com/gree-ml/gree/go/compiler/ir"
)

// resource returns the resource dialect/key, creating an undefined one on
// first mention.
func (p *parser) resource(dialect, key string) *ir.Resource {
	id := dialect + "\x00" + key
	if r, ok := p.resIndex[id]; ok {
		return r
	}
	r := &ir.Resource{Dialect: dialect, Key: key}
	p.resources = append(p.resources, r)
	p.resIndex[id] = r
	return r
}

// parseFileMetadata parses
//
//	{-# dialect_resources: { dialect: { key: value, … }, … }, external_resources: {…} #-}
//
// Builtin blobs become the data of dense_resource attributes; entries of
// other dialects are kept on the module; external_resources are skipped.
func (p *parser) parseFileMetadata() error {
	p.advance() // {-#
	for {
		if p.tok.kind != tokIdent {
			return p.unexpected("'dialect_resources' or 'external_resources'")
		}
		section, pos := p.tok.text, p.tok.pos
		if section != "dialect_resources" && section != "external_resources" {
			return p.errorf(pos, "unknown file metadata key '%s' (expected 'dialect_resources' or 'external_resources')", section)
		}
		p.advance()
		if err := p.expect(":"); err != nil {
			return err
		}
		if err := p.expect("{"); err != nil {
			return err
		}
		err := p.parseCommaList("}", func() error {
			return p.parseResourceGroup(section == "dialect_resources")
		})
		if err != nil {
			return err
		}
		if !p.optional(",") {
			break
		}
	}
	return p.expect("#-}")
}

// parseResourceGroup parses "dialect: { key: value, … }".
func (p *parser) parseResourceGroup(keep bool) error {
	dialect, err := p.parseResourceKey()
	if err != nil {
		return err
	}
	if err := p.expect(":"); err != nil {
		return err
	}
	if err := p.expect("{"); err != nil {
		return err
	}
	return p.parseCommaList("}", func() error {
		keyPos := p.tok.pos
		key, err := p.parseResourceKey()
		if err != nil {
			return err
		}
		if err := p.expect(":"); err != nil {
			return err
		}
		valPos := p.tok.pos
		var text, str string
		switch {
		case p.tok.kind == tokString:
			text, str = p.tok.text, p.tok.val
		case p.isKeyword("true") || p.isKeyword("false"):
			text = p.tok.text
		default:
			return p.unexpected("a resource value (a string or a bool)")
		}
		p.advance()
		if !keep {
			return nil
		}
		r := p.resource(dialect, key)
		if r.Defined {
			return p.errorf(keyPos, "duplicate resource '%s' of dialect '%s'", key, dialect)
		}
		r.Defined = true
		if strings.HasPrefix(str, "0x") {
			data, err := hex.DecodeString(str[2:])
			if err != nil || len(data) < 4 {
				return p.errorf(valPos, "resource '%s': malformed blob (want \"0x\", a 4-byte alignment and the data in hex)", key)
			}
			r.Alignment = uint32(data[0]) | uint32(data[1])<<8 | uint32(data[2])<<16 | uint32(data[3])<<24
			r.Blob = data[4:]
			return nil
		}
		r.Value = text
		return nil
	})
}

// parseResourceKey parses a bare identifier or string used as a key.
func (p *parser) parseResourceKey() (string, error) {
	switch p.tok.kind {
	case tokIdent:
		k := p.tok.text
		p.advance()
		return k, nil
	case tokString:
		k := p.tok.val
		p.advance()
		return k, nil
	}
	return "", p.unexpected("a resource key")
}
