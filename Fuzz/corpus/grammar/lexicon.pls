<?xml version="1.0" encoding="UTF-8"?>
<lexicon version="1.0" xmlns="http://www.w3.org/2005/01/pronunciation-lexicon" alphabet="ipa" xml:lang="en-US">
  <lexeme><grapheme>Earshot</grapheme><phoneme>ˈɪɹˌʃɑt</phoneme></lexeme>
  <lexeme><grapheme>church</grapheme><grapheme>churches</grapheme><phoneme>t͡ʃɝtʃ</phoneme></lexeme>
  <lexeme><grapheme>voice</grapheme><phoneme>vɔɪs</phoneme><phoneme alphabet="x-arpabet">V OY1 S</phoneme></lexeme>
  <lexeme><grapheme>W3C</grapheme><alias>world wide web consortium</alias></lexeme>
</lexicon>
