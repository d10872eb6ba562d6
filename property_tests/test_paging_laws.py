"""Laws of rea.paging.paginate: pages partition a listing exactly."""

from hypothesis import given
from hypothesis import strategies as st

from rea.paging import paginate

items_st = st.lists(st.integers() | st.text(max_size=3), max_size=60)


@given(items_st, st.integers(1, 70))
def test_walk_visits_every_item_once_in_order(items, limit):
    seen, offset, pages = [], 0, []
    while True:
        page = paginate(items, offset, limit)
        pages.append(page)
        assert page.total == len(items)
        assert page.offset == offset and page.limit == limit
        assert 0 < len(page.items) <= limit or (not items and not page.items)
        seen.extend(page.items)
        if page.next_offset is None:
            break
        assert page.next_offset == offset + len(page.items) > offset
        offset = page.next_offset
    assert seen == list(items)
    assert len(pages) == max(1, -(-len(items) // limit))
    # next_offset is null exactly on the last page
    assert [p.next_offset is None for p in pages] == [False] * (len(pages) - 1) + [True]


@given(items_st, st.integers(0, 80), st.integers(0, 80))
def test_any_page_is_a_slice(items, offset, limit):
    page = paginate(items, offset, limit)
    assert list(page.items) == list(items[offset : offset + limit])
    end = min(offset + limit, len(items))
    assert page.next_offset == (end if end < len(items) else None)
    assert page.envelope() == {"offset": offset, "limit": limit, "total": len(items), "next_offset": page.next_offset}


@given(items_st, st.integers(0, 80))
def test_no_limit_returns_the_rest(items, offset):
    page = paginate(items, offset, None)
    assert list(page.items) == list(items[offset:])
    assert page.next_offset is None
    assert paginate(items).items == tuple(items)
