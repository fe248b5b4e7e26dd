package simwire

import (
	"bufio"
	"errors"
	"io"
	"strconv"
	"strings"
)

// awsChunkedReader decodes S3's aws-chunked content encoding: chunks of
// "<hex size>[;chunk-signature=...]\r\n<data>\r\n", ended by a chunk of
// size 0 and optional trailing headers (checksums), which are dropped.
type awsChunkedReader struct {
	r    *bufio.Reader
	left int64 // bytes left in the current chunk
	done bool
}

func newLineReader(r io.Reader) *bufio.Reader { return bufio.NewReaderSize(r, 64<<10) }

// maxChunkLine bounds a chunk's header line.
const maxChunkLine = 4096

func (c *awsChunkedReader) Read(p []byte) (int, error) {
	for c.left == 0 {
		if c.done {
			return 0, io.EOF
		}
		line, err := c.line()
		if err != nil {
			return 0, err
		}
		if line == "" {
			continue // the CRLF after a chunk's data
		}
		size, _, _ := strings.Cut(line, ";")
		n, err := strconv.ParseInt(strings.TrimSpace(size), 16, 64)
		if err != nil || n < 0 {
			return 0, errors.New("aws-chunked body: bad chunk size " + strconv.Quote(line))
		}
		if n == 0 {
			c.done = true
			// Trailing headers and the final CRLF are not content.
			_, _ = io.Copy(io.Discard, io.LimitReader(c.r, maxChunkLine))
			return 0, io.EOF
		}
		c.left = n
	}
	if int64(len(p)) > c.left {
		p = p[:c.left]
	}
	n, err := c.r.Read(p)
	c.left -= int64(n)
	if err == io.EOF && c.left > 0 {
		err = io.ErrUnexpectedEOF
	}
	return n, err
}

func (c *awsChunkedReader) line() (string, error) {
	var b strings.Builder
	for b.Len() <= maxChunkLine {
		s, err := c.r.ReadString('\n')
		b.WriteString(s)
		if err == nil {
			return strings.TrimRight(b.String(), "\r\n"), nil
		}
		if err == io.EOF {
			return "", io.ErrUnexpectedEOF
		}
		return "", err
	}
	return "", errors.New("aws-chunked body: a chunk header is too long")
}
