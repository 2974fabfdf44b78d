// The global operator new and delete of the benchmark binary count through the meter, so the
// C++ baselines' per-agent objects, their behavior objects and their bucket vectors are measured.
#include <cstddef>
#include <new>

#include "meter.h"

void* operator new(std::size_t size) {
    if (void* p = meter_malloc(size)) return p;
    throw std::bad_alloc();
}
void* operator new[](std::size_t size) {
    return ::operator new(size);
}
void* operator new(std::size_t size, const std::nothrow_t&) noexcept {
    return meter_malloc(size);
}
void* operator new[](std::size_t size, const std::nothrow_t&) noexcept {
    return meter_malloc(size);
}
void operator delete(void* p) noexcept {
    meter_release(p);
}
void operator delete[](void* p) noexcept {
    meter_release(p);
}
void operator delete(void* p, std::size_t) noexcept {
    meter_release(p);
}
void operator delete[](void* p, std::size_t) noexcept {
    meter_release(p);
}
void operator delete(void* p, const std::nothrow_t&) noexcept {
    meter_release(p);
}
void operator delete[](void* p, const std::nothrow_t&) noexcept {
    meter_release(p);
}
